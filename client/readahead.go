package client

import "net"

// readAheadSize is the most a readAheadConn reads from the connection at once.
const readAheadSize = 16 << 10

// readAheadConn reads ahead, beneath the liveConn: go-zookeeper reads every
// reply with two reads (its 4-byte length, then its body), each a system
// call, though a busy connection (a cache's load pipelines thousands of
// reads) usually has many replies waiting, which one read of up to
// readAheadSize bytes brings in at once. Only the receive loop reads (the
// connect response before it), so it needs no lock. Deadlines and writes
// go to the connection unchanged; bytes already read are returned even past
// a read deadline, as if they had been read just before it.
type readAheadConn struct {
	net.Conn
	buf  []byte // made on the first read
	r, w int    // buf[r:w] is read but not returned yet
	err  error  // an error that came with bytes, returned once buf is empty
}

func newReadAheadConn(c net.Conn) *readAheadConn { return &readAheadConn{Conn: c} }

// Read returns bytes read ahead, or reads more.
func (c *readAheadConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if c.r == c.w {
		if err := c.err; err != nil {
			c.err = nil // as bufio.Reader: the error once, then read again
			return 0, err
		}
		if len(p) >= readAheadSize {
			return c.Conn.Read(p) // a large reply: straight into go-zookeeper's buffer
		}
		if c.buf == nil {
			c.buf = make([]byte, readAheadSize)
		}
		n, err := c.Conn.Read(c.buf)
		c.r, c.w = 0, n
		if n == 0 {
			return 0, err
		}
		c.err = err // kept for the read that finds buf empty
	}
	n := copy(p, c.buf[c.r:c.w])
	c.r += n
	return n, nil
}
