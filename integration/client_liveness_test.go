package integration

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// A holder's Lost closes from the server's clock. The
// server expires a session T after the last frame it RECEIVED from the
// client, so watch notifications streaming to a client that sends nothing
// must not delay its suspension.

// livenessWatched is how many one-shot watches the holder sets, each fired
// by one create of the streaming client.
const livenessWatched = 300

// TestClientLivenessMarginUnderNotifications is the worst case: notifications
// stream to the holder while it sends nothing but pings, and its link is
// blackholed just before its next ping. The next holder's grant (after the
// server expired the old session) must come at least T/4 after the old
// holder's Lost, in every round.
func TestClientLivenessMarginUnderNotifications(t *testing.T) {
	noLeaks(t)
	const T = 1500 * time.Millisecond
	const want = 5
	worst := 0
	for attempt := 1; worst < want && attempt <= 2*want; attempt++ {
		t.Run(fmt.Sprintf("round%d", attempt), func(t *testing.T) {
			if clLivenessRound(t, T) {
				worst++
			}
		})
		if t.Failed() {
			return
		}
	}
	require.Equal(t, want, worst, "rounds whose blackhole beat the next ping")
}

// clLivenessRound runs one round and reports whether the blackhole came
// before the holder's next ping (the worst case).
func clLivenessRound(t *testing.T, T time.Duration) bool {
	ns := namespace(t)
	link := newLink(t)
	h := connect(t, clientOpts{link: link, ns: ns, timeout: T})
	w := connect(t, clientOpts{ns: ns})
	s := connect(t, clientOpts{ns: ns})
	require.Equal(t, T, h.SessionTimeout(), "negotiated timeout")
	ctx := ctxT(t, 60*time.Second)

	hm, err := mutex.New(h, "/lock")
	require.NoError(t, err)
	require.NoError(t, hm.Lock(ctx))
	lostAt := make(chan time.Time, 1)
	go func() {
		select {
		case <-hm.Lost():
			lostAt <- time.Now()
		case <-ctx.Done():
		}
	}()

	wm, err := mutex.New(w, "/lock")
	require.NoError(t, err)
	type grant struct {
		at  time.Time
		err error
	}
	granted := make(chan grant, 1)
	go func() {
		err := wm.Lock(ctx)
		granted <- grant{time.Now(), err}
	}()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		kids, _, err := s.Children(ctx, "/lock")
		require.NoError(ct, err)
		assert.Len(ct, kids, 2)
	}, 10*time.Second, pollEvery, "the waiter queued")

	// The holder's one-shot watches; each notification that reaches it is
	// noted, so the round can show they kept coming up to the blackhole.
	_, err = s.Create(ctx, "/n", nil, 0)
	require.NoError(t, err)
	var lastNote atomic.Int64 // UnixNano of the latest notification received
	var notes atomic.Int64
	var watchers sync.WaitGroup
	t.Cleanup(watchers.Wait)
	for i := range livenessWatched {
		_, _, ev, err := h.ExistsW(ctx, fmt.Sprintf("/n/%d", i))
		require.NoError(t, err)
		watchers.Add(1)
		go func() {
			defer watchers.Done()
			if e, ok := <-ev; ok && e.Type == zk.EventNodeCreated {
				lastNote.Store(time.Now().UnixNano())
				notes.Add(1)
			}
		}()
	}

	// Wait for a ping, start the stream, and blackhole about 2 ms before
	// the next ping is due (pings go every T/3, whatever else is sent; a
	// ping is seen up to a poll late, hence 3 ms after the one seen).
	pings := link.Requests(faultlink.OpPing)
	for link.Requests(faultlink.OpPing) == pings {
		time.Sleep(250 * time.Microsecond)
	}
	pingAt := time.Now()
	pings = link.Requests(faultlink.OpPing)
	stop := make(chan struct{})
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		for i := range livenessWatched {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Create(ctx, fmt.Sprintf("/n/%d", i), nil, 0); err != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-streamed
	})
	time.Sleep(time.Until(pingAt.Add(T/3 - 3*time.Millisecond)))
	link.Blackhole()
	holeAt := time.Now()
	worstCase := link.Requests(faultlink.OpPing) == pings // the next ping was swallowed
	sinceNote := holeAt.Sub(time.Unix(0, lastNote.Load()))
	notesBefore := notes.Load()

	var lost time.Time
	select {
	case lost = <-lostAt:
	case <-ctx.Done():
		require.FailNow(t, "the holder's Lost never closed")
	}
	g := <-granted
	require.NoError(t, g.err, "the waiter's Lock")
	margin := g.at.Sub(lost)
	t.Logf("worst case %v: %d notifications before the blackhole, the last %v before it; Lost %v and grant %v after the blackhole: margin %v (want >= %v)",
		worstCase, notesBefore, sinceNote.Round(time.Millisecond), lost.Sub(holeAt).Round(time.Millisecond),
		g.at.Sub(holeAt).Round(time.Millisecond), margin.Round(time.Millisecond), T/4)
	require.GreaterOrEqual(t, margin, T/4, "the next holder was granted too soon after the old holder's Lost")

	link.Restore()
	require.NoError(t, wm.Unlock(ctx))
	return worstCase
}

// TestClientNegotiatedTimeoutRulesExpiry: a server whose maxSessionTimeout is
// below the timeout asked for negotiates it down, and the client reports and
// uses the negotiated value: a cut link makes it Suspended at once (every
// holder's Lost closes) and locally Lost one negotiated timeout later, not
// one requested timeout later.
func TestClientNegotiatedTimeoutRulesExpiry(t *testing.T) {
	noLeaks(t)
	const requested, negotiated = 20 * time.Second, 4 * time.Second
	cl := zktest.ForTest(t, zktest.WithMaxSessionTimeout(negotiated))
	link := newLink(t)
	c := connect(t, clientOpts{cluster: cl, link: link, ns: namespace(t), timeout: requested})
	require.Equal(t, negotiated, c.SessionTimeout(), "SessionTimeout reports the negotiated value")
	ctx := ctxT(t, 60*time.Second)

	held, err := mutex.New(c, "/a")
	require.NoError(t, err)
	require.NoError(t, held.Lock(ctx))
	sessionOnly, err := mutex.New(c, "/b", mutex.WithLostOnSessionLossOnly())
	require.NoError(t, err)
	require.NoError(t, sessionOnly.Lock(ctx))
	sid := c.Session().ID()

	events, cancel := c.Subscribe()
	defer cancel()
	link.Cut()
	cutAt := time.Now()
	suspended := clExpect(t, events, client.StateSuspended, sid, 10*time.Second)
	require.True(t, waitClosed(held.Lost(), 5*time.Second), "a holder's Lost did not close at Suspended")
	heldLost := time.Since(cutAt)
	lost := clExpect(t, events, client.StateLost, sid, 2*requested)
	require.True(t, waitClosed(sessionOnly.Lost(), 5*time.Second), "a session-only holder's Lost did not close at Lost")
	gap := lost.Time.Sub(suspended.Time)
	ratio := float64(gap) / float64(negotiated)
	t.Logf("requested %v, negotiated %v: Suspended %v after the cut, a holder's Lost %v after it; Lost %v after Suspended (%.2f x negotiated, %.2f x requested)",
		requested, c.SessionTimeout(), suspended.Time.Sub(cutAt).Round(time.Millisecond), heldLost.Round(time.Millisecond),
		gap.Round(time.Millisecond), ratio, float64(gap)/float64(requested))
	require.GreaterOrEqual(t, ratio, 0.99, "local expiry before a whole negotiated timeout")
	require.LessOrEqual(t, ratio, 1.3, "local expiry does not follow the negotiated timeout")

	link.Restore()
	ev := clNext(t, events, 30*time.Second)
	require.Equal(t, client.StateReconnected, ev.State, clDescribe(ev))
	require.NotEqual(t, sid, ev.SessionID, "a new session")
}
