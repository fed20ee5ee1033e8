package client

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
)

// scriptConn is a net.Conn whose reads return the given chunks, then err.
type scriptConn struct {
	net.Conn
	chunks [][]byte
	err    error
	reads  int
}

func (s *scriptConn) Read(p []byte) (int, error) {
	s.reads++
	if len(s.chunks) == 0 {
		return 0, s.err
	}
	n := copy(p, s.chunks[0])
	s.chunks[0] = s.chunks[0][n:]
	if len(s.chunks[0]) == 0 {
		s.chunks = s.chunks[1:]
	}
	return n, nil
}

// The reader gets the same bytes in the same order, in as many small reads
// as it likes, from one read of the connection per chunk that arrived; the
// connection's error comes after the bytes.
func TestReadAheadServesSmallReadsFromOneRead(t *testing.T) {
	var want []byte
	var chunks [][]byte
	for i := range 3 {
		c := bytes.Repeat([]byte{byte('a' + i)}, 1000)
		want = append(want, c...)
		chunks = append(chunks, c)
	}
	raw := &scriptConn{chunks: chunks, err: io.EOF}
	c := newReadAheadConn(raw)
	var got []byte
	buf := make([]byte, 7)
	for {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, not the %d sent in order", len(got), len(want))
	}
	if raw.reads != 4 { // three chunks, then EOF
		t.Errorf("%d reads of the connection, want 4", raw.reads)
	}
}

// A read as large as the buffer goes straight to the connection when
// nothing is buffered.
func TestReadAheadLargeReadGoesThrough(t *testing.T) {
	big := bytes.Repeat([]byte{'x'}, readAheadSize+10)
	raw := &scriptConn{chunks: [][]byte{big}, err: io.EOF}
	c := newReadAheadConn(raw)
	p := make([]byte, len(big))
	if _, err := io.ReadFull(c, p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p, big) || c.buf != nil {
		t.Errorf("want the bytes read straight into p, no buffer made")
	}
}
