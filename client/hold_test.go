package client

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replyZ is a reply frame with a chosen zxid.
func replyZ(xid int32, zxid int64, body int) []byte {
	return frame(i32(xid), i64(zxid), i32(0), make([]byte, body))
}

// TestLiveConnHoldsZxidReplies: after the connect response of a session
// holding the sentinel, a ping reply, a notification and a reply without a
// zxid (re-sent credentials) pass at once; the first reply carrying a zxid
// is held, and what follows it with it, until setWatches is written; then
// everything passes in order. A session without the sentinel holds nothing.
func TestLiveConnHoldsZxidReplies(t *testing.T) {
	for _, sentinel := range []bool{true, false} {
		cli, srv := net.Pipe()
		l := newLiveConn(cli, slog.Default(), nil, func(sid int64) bool { return sentinel && sid == 9 })
		resumed := connectResponse(1500, 9)
		passing := append(append(replyZ(-2, 40, 0), replyZ(-1, 0, 30)...), replyZ(3, 0, 0)...)
		heldBack := append(replyZ(4, 41, 20), replyZ(-2, 41, 0)...)
		go func() {
			buf := make([]byte, len(connectRequest()))
			_, _ = io.ReadFull(srv, buf)
			_, _ = srv.Write(resumed)
			_, _ = srv.Write(append(append([]byte(nil), passing...), heldBack...))
		}()
		_, err := l.Write(connectRequest())
		require.NoError(t, err)
		got := make([]byte, len(resumed))
		_, err = io.ReadFull(l, got)
		require.NoError(t, err)
		require.Equal(t, resumed, got)

		got = make([]byte, len(passing))
		_, err = io.ReadFull(l, got)
		require.NoError(t, err)
		assert.Equal(t, passing, got, "pings, notifications and zxid-less replies pass")

		next := make(chan []byte, 1)
		go func() {
			b := make([]byte, len(heldBack))
			_, _ = io.ReadFull(l, b)
			next <- b
		}()
		if sentinel {
			select {
			case <-next:
				t.Fatal("a reply with a zxid passed before setWatches was written")
			case <-time.After(200 * time.Millisecond):
			}
			go func() { _, _ = io.ReadFull(srv, make([]byte, len(request(5, opSetWatches, 8)))) }()
			_, err = l.Write(request(5, opSetWatches, 8))
			require.NoError(t, err)
		}
		select {
		case b := <-next:
			assert.True(t, bytes.Equal(heldBack, b), "the held replies, in order")
		case <-time.After(5 * time.Second):
			t.Fatal("the held replies never passed")
		}
		_ = l.Close()
		_ = srv.Close()
	}
}
