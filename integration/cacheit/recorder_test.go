package cacheit

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// recorder keeps every event a cache delivered to one subscription, and the
// map those events build when replayed from empty.
type recorder struct {
	mu     sync.Mutex
	events []cache.Event
	replay map[string]string // path -> data
	wake   chan struct{}
	done   chan struct{}
}

// record subscribes to ch's events (call it before Start to see the load).
func record(t *testing.T, ch *cache.Cache) *recorder {
	r := &recorder{replay: map[string]string{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	events, cancel := ch.Events()
	go func() {
		defer close(r.done)
		for ev := range events {
			r.mu.Lock()
			r.events = append(r.events, ev)
			switch ev.Type {
			case cache.Created, cache.Changed:
				r.replay[ev.Node.Path] = string(ev.Node.Data)
			case cache.Deleted:
				delete(r.replay, ev.Node.Path)
			}
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
	})
	return r
}

// String renders an event as "TYPE path=data".
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

// waitN waits until n events came and returns them rendered.
func (r *recorder) waitN(t *testing.T, n int, d time.Duration) []string {
	t.Helper()
	itest.Eventually(t, d, "events", func() bool { return len(r.all()) >= n })
	return r.all()
}

// waitFor waits until the events are exactly want (no more), in order.
func (r *recorder) waitFor(t *testing.T, want []string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		got := r.all()
		if len(got) >= len(want) {
			require.Equal(t, want, got[:len(want)], "events")
			require.Len(t, got, len(want), "events after %v: %v", want, got[len(want):])
			return
		}
		if time.Now().After(deadline) {
			require.FailNowf(t, "missing events", "want %v, got %v", want, got)
		}
		select {
		case <-r.wake:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// replayed is the map the events give, replayed on an empty one.
func (r *recorder) replayed() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.replay))
	for k, v := range r.replay {
		out[k] = v
	}
	return out
}
