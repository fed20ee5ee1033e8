package zktest

import (
	"os"
	"strings"
)

// TLS returns the keys and certificates of a cluster started WithTLS, or
// nil without it.
func (c *Cluster) TLS() *TLSFiles {
	if c == nil {
		return nil
	}
	return c.cfg.tlsFiles
}

// SecureAddr returns "127.0.0.1:PORT", the secure (TLS) client address of
// server i, or "" when i is out of range or the cluster was started
// without WithTLS. Like Addr it stays the same across restarts.
func (c *Cluster) SecureAddr(i int) string {
	if c == nil || c.checkIndex(i) != nil || len(c.secure) == 0 {
		return ""
	}
	return c.secure[i]
}

// SecureAddrs returns the secure client addresses of all servers, in index
// order (nil without WithTLS).
func (c *Cluster) SecureAddrs() []string {
	if c == nil || len(c.secure) == 0 {
		return nil
	}
	return append([]string(nil), c.secure...)
}

// SecureConnectString returns the comma-separated secure client addresses
// ("" without WithTLS).
func (c *Cluster) SecureConnectString() string {
	if c == nil {
		return ""
	}
	return strings.Join(c.secure, ",")
}

// removeTLSFiles deletes what makeTLSFiles made, if anything.
func (c config) removeTLSFiles() {
	if c.tlsFiles != nil {
		_ = os.RemoveAll(c.tlsFiles.Dir)
	}
}
