package lockdebate

import (
	"net"
	"sync"
)

// relay is a TCP forwarder on loopback between a Redis replica and its
// primary: the replica replicates through it, and Hold stalls the primary's
// stream to the replica from then on, as a congested or broken link would,
// so that a write the primary acknowledged is known not to have reached the
// replica. A held link is never released (the stream would be corrupt);
// Close ends it.
type relay struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	held   bool
	conns  []net.Conn
	closed bool
	wg     sync.WaitGroup
}

// startRelay listens on a free loopback port and forwards to target.
func startRelay(target string) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, target: target}
	r.wg.Go(r.accept)
	return r, nil
}

// Addr is where the replica connects.
func (r *relay) Addr() *net.TCPAddr { return r.ln.Addr().(*net.TCPAddr) }

func (r *relay) accept() {
	for {
		down, err := r.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", r.target)
		if err != nil {
			_ = down.Close()
			continue
		}
		if !r.track(down, up) {
			return
		}
		r.wg.Go(func() { r.forward(up, down, false) }) // replica to primary: never held
		r.wg.Go(func() { r.forward(down, up, true) })  // primary to replica
	}
}

// track remembers the connections for Close; false once closed.
func (r *relay) track(conns ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	r.conns = append(r.conns, conns...)
	return true
}

// forward copies src to dst until either side ends. A stream that can be
// held drops what it reads once held: bytes the primary sent after Hold
// returned never reach dst (bytes read before may still be written).
func (r *relay) forward(dst, src net.Conn, canHold bool) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !(canHold && r.isHeld()) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or a closed connection: the link is over
		}
	}
}

// isHeld reports whether Hold was called.
func (r *relay) isHeld() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
}

// Hold stalls the primary's stream to the replica: everything the primary
// sends from now on is withheld. The replica still believes itself linked.
func (r *relay) Hold() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = true
}

// Close stops listening, drops every connection (and with them whatever was
// withheld) and waits for the forwarders. A second Close does nothing.
func (r *relay) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	conns := r.conns
	r.conns = nil
	r.mu.Unlock()
	err := r.ln.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	r.wg.Wait()
	return err
}
