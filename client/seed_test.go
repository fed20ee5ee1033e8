package client

import (
	"bytes"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeededFirstConnectionResendsSentinel: go-zookeeper sends setWatches on
// a new session's very first connection, naming the sentinel, only when the
// dial seeded it (so the liveConn can hold replies on every connection),
// and calls the hook that ends the hold once, before it writes it;
// unseeded, it sends none there. Run against go-zookeeper itself, over a
// pipe standing in for the server.
func TestSeededFirstConnectionResendsSentinel(t *testing.T) {
	for _, seed := range []bool{true, false} {
		cli, srv := net.Pipe()
		ready := make(chan *zk.Conn, 1)
		seeded, hookedOK := make(chan bool, 1), make(chan bool, 1)
		reads := make(chan struct{}, 4)
		conn, _, err := zk.Connect([]string{"127.0.0.1:1"}, 3*time.Second,
			zk.WithLogger(zkLogger{slog.New(slog.DiscardHandler)}),
			zk.WithDialer(func(string, string, time.Duration) (net.Conn, error) {
				c := <-ready
				if seed {
					seeded <- seedSentinel(c)
					hookedOK <- hookSetWatches(c, func() { reads <- struct{}{} })
				}
				return cli, nil
			}))
		require.NoError(t, err)
		ready <- conn

		frames := make(chan []byte, 16)
		go func() {
			defer close(frames)
			for {
				var size [4]byte
				if _, err := io.ReadFull(srv, size[:]); err != nil {
					return
				}
				body := make([]byte, binary.BigEndian.Uint32(size[:]))
				if _, err := io.ReadFull(srv, body); err != nil {
					return
				}
				frames <- body
			}
		}()
		<-frames // the connect request
		_, err = srv.Write(connectResponse(3000, 9))
		require.NoError(t, err)
		if seed {
			require.True(t, <-seeded, "seedSentinel works on go-zookeeper's layout")
			require.True(t, <-hookedOK, "hookSetWatches works on go-zookeeper's layout")
		}

		var setWatches []byte
		timeout := time.After(time.Second)
	read:
		for {
			select {
			case f, ok := <-frames:
				if !ok {
					break read
				}
				if len(f) >= 8 && int32(binary.BigEndian.Uint32(f[4:8])) == opSetWatches {
					setWatches = f
					break read
				}
			case <-timeout:
				break read
			}
		}
		if seed {
			require.NotNil(t, setWatches, "a seeded first connection re-sends its watches")
			assert.True(t, bytes.Contains(setWatches, []byte(sentinelPath)), "naming the sentinel")
			assert.Len(t, reads, 1, "the hook ran once, before the setWatches was written")
		} else {
			assert.Nil(t, setWatches, "an unseeded first connection has nothing to re-send")
		}
		_ = srv.Close() // first: go-zookeeper's Close then need not wait for a reply
		conn.Close()
	}
}

// TestSeedSentinelIsIdempotent: seeding an already seeded table succeeds; a nil
// connection is refused rather than a panic.
func TestSeedSentinelIsIdempotent(t *testing.T) {
	assert.False(t, seedSentinel(nil))
	conn, _, err := zk.Connect([]string{"127.0.0.1:1"}, time.Second,
		zk.WithLogger(zkLogger{slog.New(slog.DiscardHandler)}),
		zk.WithDialer(func(string, string, time.Duration) (net.Conn, error) {
			return nil, io.EOF // never connects
		}))
	require.NoError(t, err)
	defer conn.Close()
	require.True(t, seedSentinel(conn))
	require.True(t, seedSentinel(conn))
}
