package cacheit

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// recorder keeps every event a cache delivered to one subscription, and the
// map those events build when replayed from empty (chaos.Replay, which
// also notes every event that does not fit those before it: the test's
// cleanup fails on any). Tests read the events in order with a cursor
// (next, nextSet, none), as Curator's assertEvent does.
type recorder struct {
	mu     sync.Mutex
	events []cache.Event
	replay *chaos.Replay
	cursor int // events the test has checked so far
	wake   chan struct{}
	done   chan struct{}
}

// quiet is how long none waits for an event that must not come: Curator's
// sleepABit. A longer quiet only makes a passing test slower.
const quiet = 600 * time.Millisecond

// record subscribes to ch's events (call it before Start to see the load).
// At cleanup it stops and fails the test if an event did not fit.
func record(t *testing.T, ch *cache.Cache) *recorder {
	r := &recorder{replay: chaos.NewReplay(ch.Path()), wake: make(chan struct{}, 1), done: make(chan struct{})}
	events, cancel := ch.Events()
	go func() {
		defer close(r.done)
		for ev := range events {
			r.mu.Lock()
			r.events = append(r.events, ev)
			r.replay.Apply(ev)
			r.mu.Unlock()
			select {
			case r.wake <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
		if p := r.problems(); len(p) > 0 {
			t.Errorf("events that do not fit those before them:\n%s", strings.Join(p, "\n"))
		}
	})
	return r
}

// evString renders an event as "TYPE path=data".
func evString(ev cache.Event) string {
	if ev.Type == cache.Initialized {
		return ev.Type.String()
	}
	return fmt.Sprintf("%s %s=%s", ev.Type, ev.Node.Path, ev.Node.Data)
}

// all returns the events so far, rendered.
func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.events))
	for i, ev := range r.events {
		out[i] = evString(ev)
	}
	return out
}

// count is the number of events so far.
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// waitN waits until n events came and returns them rendered.
func (r *recorder) waitN(t *testing.T, n int, d time.Duration) []string {
	t.Helper()
	itest.Eventually(t, d, fmt.Sprintf("%d events", n), func() bool { return r.count() >= n })
	return r.all()
}

// take waits (up to 15 s) for n events after the cursor, moves the cursor
// past them and returns them rendered.
func (r *recorder) take(t *testing.T, n int) []string {
	t.Helper()
	r.mu.Lock()
	from := r.cursor
	r.mu.Unlock()
	deadline := time.Now().Add(15 * time.Second)
	for r.count() < from+n {
		if time.Now().After(deadline) {
			require.FailNowf(t, "missing events", "want %d events after %v, got %v", n, r.all()[:from], r.all()[from:])
		}
		select {
		case <-r.wake:
		case <-time.After(50 * time.Millisecond):
		}
	}
	r.mu.Lock()
	r.cursor = from + n
	r.mu.Unlock()
	return r.all()[from : from+n]
}

// next requires that the events after the cursor are want, in this order.
func (r *recorder) next(t *testing.T, want ...string) {
	t.Helper()
	require.Equal(t, want, r.take(t, len(want)), "events")
}

// nextSet requires that the events after the cursor are want, in any order
// (events of different nodes, whose reads may answer in any order).
func (r *recorder) nextSet(t *testing.T, want ...string) {
	t.Helper()
	require.ElementsMatch(t, want, r.take(t, len(want)), "events")
}

// none requires that no event comes after the cursor for a while.
func (r *recorder) none(t *testing.T) {
	t.Helper()
	time.Sleep(quiet)
	r.mu.Lock()
	extra := r.events[r.cursor:]
	r.mu.Unlock()
	if len(extra) > 0 {
		var s []string
		for _, ev := range extra {
			s = append(s, evString(ev))
		}
		require.FailNowf(t, "unexpected events", "%v", s)
	}
}

// replayed is the map the events give, replayed on an empty one: path ->
// data.
func (r *recorder) replayed() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for p, n := range r.replay.Tree() {
		out[p] = n.Data
	}
	return out
}

// tree is the replayed view with zxids.
func (r *recorder) tree() chaos.Tree {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replay.Tree()
}

// problems are the events that did not fit those before them.
func (r *recorder) problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replay.Problems()
}
