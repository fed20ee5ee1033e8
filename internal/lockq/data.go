package lockq

import (
	"net"
	"os"
	"sync"
)

var (
	defaultDataOnce sync.Once
	defaultData     []byte
)

// DefaultData is the node data a contender writes when its caller gives
// none: like Curator, this host's first non-loopback IP address as text,
// else its host name, else "127.0.0.1". Computed once; no network I/O.
func DefaultData() []byte {
	defaultDataOnce.Do(func() {
		defaultData = []byte(localAddress())
	})
	return append([]byte(nil), defaultData...)
}

func localAddress() string {
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
				return ipn.IP.String()
			}
		}
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "127.0.0.1"
}
