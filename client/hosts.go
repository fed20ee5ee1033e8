package client

import (
	"errors"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zookeeper/zk"
)

// errNoHosts is what hostList.Init returns for an empty list (New rejects
// that earlier, so it is never seen in practice).
var errNoHosts = errors.New("zkrecipes: no ZooKeeper servers")

// hostList chooses the server of each dial of the client's connection
// (wire.Hosts; the shape of go-zookeeper's HostProvider). It does not
// resolve names in Init: it keeps the "host:port" strings, so each dial
// resolves the name afresh (net.DialTimeout does, and a user's Dialer gets
// the name). A name that does not resolve is then only a failed dial, which
// the connection retries. Servers are tried in a shuffled round robin;
// retryStart reports a full round without a successful connection.
type hostList struct {
	mu      sync.Mutex
	servers []string
	curr    int // index returned by the last Next; -1 before the first
	last    int // index of the last successful connection; -1 before the first Next
}

// Init keeps a shuffled copy of servers (already "host:port": see zk.FormatServers).
func (h *hostList) Init(servers []string) error {
	if len(servers) == 0 {
		return errNoHosts
	}
	s := append([]string(nil), servers...)
	rand.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	h.mu.Lock()
	defer h.mu.Unlock()
	h.servers = s
	h.curr = -1
	h.last = -1
	return nil
}

// Len is the number of servers.
func (h *hostList) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

// Next returns the server to dial next; retryStart is true once every
// server was tried since the last successful connection.
func (h *hostList) Next() (server string, retryStart bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.curr = (h.curr + 1) % len(h.servers)
	retryStart = h.curr == h.last
	if h.last == -1 {
		h.last = 0
	}
	return h.servers[h.curr], retryStart
}

// Connected records a successful connection to the server Next returned last.
func (h *hostList) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.curr
}

var _ zk.HostProvider = (*hostList)(nil)

// checkServer rejects an address that no dial could ever use: empty, or
// not "host:port" with a numeric port in 1..65535 once go-zookeeper's
// default port is added to a bare host. Whether the host resolves is not
// checked: that is the dial's business, and may change over time.
func checkServer(addr string) error {
	if strings.TrimSpace(addr) == "" {
		return errs.Invalid("empty server address")
	}
	full := zk.FormatServers([]string{addr})[0]
	host, port, err := net.SplitHostPort(full)
	if err != nil {
		return errs.Invalid("server address %q: %v", addr, err)
	}
	if host == "" {
		return errs.Invalid("server address %q: no host", addr)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return errs.Invalid("server address %q: bad port %q", addr, port)
	}
	return nil
}
