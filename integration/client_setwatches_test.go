package integration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestClientResumeWithWatchesNoRace: a client with watches set resumes its
// session after short cuts while writers keep requests coming, so replies
// arrive on the resumed connection right away. go-zookeeper re-sends the
// watches (reading the last zxid it saw) while its receive loop writes that
// zxid (its issue #260): under -race that was a reported data race, which
// the client's sentinel and liveConn hold now order. The test asserts the
// behaviour around it too: the session is the same after every cut, the
// watch set before the cuts still fires, and the writes all landed.
func TestClientResumeWithWatchesNoRace(t *testing.T) {
	t.Run("plain", func(t *testing.T) { clResumeWithWatches(t) })
	// go-zookeeper re-sends credentials and waits for their replies before
	// its send loop starts: those replies must pass the hold.
	t.Run("digest auth", func(t *testing.T) { clResumeWithWatches(t, client.WithDigestAuth("ops", "secret")) })
}

func clResumeWithWatches(t *testing.T, extra ...client.Option) {
	noLeaks(t)
	link := newLink(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 10 * time.Second, extra: extra})
	obs := connect(t, clientOpts{ns: ns, extra: extra}) // the same credentials: it may write c's nodes
	ctx := ctxT(t, time.Minute)
	_, err := c.Create(ctx, "/watched", nil, zk.FlagPersistent, client.WithParents())
	require.NoError(t, err)
	_, _, fired, err := c.GetW(ctx, "/watched")
	require.NoError(t, err)
	sid := c.Session().ID()
	events, cancel := c.Subscribe()
	defer cancel()

	wctx, stop := context.WithCancel(ctx)
	var writes atomic.Int64
	var wg sync.WaitGroup
	for w := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; wctx.Err() == nil; i++ {
				_, err := c.Create(wctx, fmt.Sprintf("/w%d-%d", w, i), nil, zk.FlagEphemeral)
				if err == nil {
					writes.Add(1)
				} else if !errors.Is(err, context.Canceled) && !errors.Is(err, zk.ErrNodeExists) {
					t.Logf("writer %d: %v", w, err)
				}
			}
		}()
	}
	const cuts = 6
	for range cuts {
		time.Sleep(150 * time.Millisecond)
		link.Cut()
		clExpect(t, events, client.StateSuspended, sid, 10*time.Second)
		link.Restore()
		clExpect(t, events, client.StateReconnected, sid, 10*time.Second)
	}
	time.Sleep(150 * time.Millisecond)
	stop()
	wg.Wait()
	require.Equal(t, sid, c.Session().ID(), "the session survived the cuts")
	require.Positive(t, writes.Load())
	t.Logf("%d cuts, %d writes", cuts, writes.Load())

	_, err = obs.Set(ctx, "/watched", []byte("x"), -1)
	require.NoError(t, err)
	select {
	case ev := <-fired:
		require.Equal(t, zk.EventNodeDataChanged, ev.Type, "the watch set before the cuts")
	case <-time.After(10 * time.Second):
		t.Fatal("the watch set before the cuts never fired")
	}
}
