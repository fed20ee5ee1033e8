package discovery

import (
	"bytes"
	"runtime"
	"strconv"
	"sync/atomic"

	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// Events returns a channel that receives every event of the cache from now
// on, in order, none dropped however slowly it is read (each subscriber
// has its own unbounded queue), and a cancel function. Subscribe before
// Start to see the initial load. The channel is closed by cancel, by
// Close, and when the client closes. Calling cancel more than once is
// harmless.
func (ch *Cache) Events() (<-chan Event, func()) {
	s := ch.subscribe()
	if s == nil {
		return pubsub.Closed[Event](), func() {}
	}
	return s.Out(), func() { ch.unsubscribe(s) }
}

// Listen calls f with every event from now on, in order, on a goroutine of
// its own (one per listener), and returns a function that removes it: a
// ServiceCacheListener's cacheChanged, with what changed. f must return:
// Close waits for a call that is running, unless Close is called from that
// very call (f may close the cache, or its Discovery: Close then does not
// wait for f, and the listener's goroutine ends once f returns). After
// Close it returns zkrecipes.ErrClosed; a nil f is an error wrapping
// zkrecipes.ErrInvalidArgument.
func (ch *Cache) Listen(f func(Event)) (remove func(), err error) {
	if ch == nil || ch.cc == nil {
		return nil, errZeroCache()
	}
	if f == nil {
		return nil, invalidArg("nil listener")
	}
	s := ch.subscribe()
	if s == nil {
		return nil, ch.closedErr()
	}
	l := &listener{done: make(chan struct{})}
	ch.mu.Lock()
	if ch.phase == closed {
		// Closed since subscribe: Close took the listeners already.
		ch.mu.Unlock()
		s.Stop()
		return nil, ch.closedErr()
	}
	if ch.listeners == nil {
		ch.listeners = make(map[*listener]struct{})
	}
	ch.listeners[l] = struct{}{}
	ch.mu.Unlock()
	go func() {
		defer func() {
			ch.mu.Lock()
			delete(ch.listeners, l)
			ch.mu.Unlock()
			close(l.done)
		}()
		l.gid.Store(goroutineID())
		for ev := range s.Out() {
			f(ev)
		}
	}()
	return func() { ch.unsubscribe(s) }, nil
}

// listener is one Listen goroutine: Close waits for it to end (done),
// unless Close runs on it (gid: the goroutine's id, 0 until it is known).
type listener struct {
	gid  atomic.Uint64
	done chan struct{}
}

// goroutineID is the calling goroutine's id, as the first line of its
// stack trace gives it ("goroutine 18 [running]:"); 0 if unreadable. It
// only tells a listener's own goroutine apart in Close, so that a Close
// called by a listener does not wait for itself.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return id
}

func (ch *Cache) subscribe() *pubsub.Sub[Event] {
	if ch == nil || ch.cc == nil {
		return nil
	}
	gone := clientClosed(ch.d.c)
	s := pubsub.New[Event]()
	ch.mu.Lock()
	if gone || ch.phase == closed || isDone(ch.doneCh) {
		ch.mu.Unlock()
		return nil
	}
	if ch.subs == nil {
		ch.subs = make(map[*pubsub.Sub[Event]]struct{})
	}
	ch.subs[s] = struct{}{}
	ch.wg.Add(1)
	ch.mu.Unlock()
	go func() {
		defer ch.wg.Done()
		s.Run()
	}()
	return s
}

func (ch *Cache) unsubscribe(s *pubsub.Sub[Event]) {
	ch.mu.Lock()
	delete(ch.subs, s)
	ch.mu.Unlock()
	s.Stop()
}

// publishLocked hands ev to every subscriber; ch.mu is held for writing,
// so readers never see a view older than an event delivered.
func (ch *Cache) publishLocked(ev Event) {
	for s := range ch.subs {
		s.Push(ev)
	}
}

// stopSubscribers closes every subscription (the pump ended).
func (ch *Cache) stopSubscribers() {
	ch.mu.Lock()
	subs := ch.subs
	ch.subs = nil
	ch.mu.Unlock()
	for s := range subs {
		s.Stop()
	}
}
