// Package pubsub is the one unbounded, ordered hand-off the library's
// subscriptions stand on: the client's state changes and node events, and the
// cache's events. A producer that must never block (go-zookeeper's event
// callback, a cache's loop) pushes; one goroutine per subscriber hands the
// values on, in order, to a channel read at the subscriber's own pace.
package pubsub

import (
	"context"
	"sync"
)

// Sub is one subscriber's queue. Push never blocks; Out delivers every value
// pushed, in order, until Stop. The zero Sub is not usable: call New.
type Sub[T any] struct {
	mu    sync.Mutex
	queue []T
	wake  chan struct{}
	out   chan T
	done  chan struct{}
	once  sync.Once
}

// New returns a subscriber queue. Its pump must run on a goroutine of the
// caller's (Run), so that the caller can count it in its own WaitGroup.
func New[T any]() *Sub[T] {
	return &Sub[T]{
		wake: make(chan struct{}, 1),
		out:  make(chan T),
		done: make(chan struct{}),
	}
}

// Closed returns a channel of T that is already closed: the answer to a
// subscription that cannot be served.
func Closed[T any]() <-chan T {
	ch := make(chan T)
	close(ch)
	return ch
}

// Out is the channel values are delivered on. It is closed once Run returns.
func (s *Sub[T]) Out() <-chan T { return s.out }

// Push queues v. It never blocks, so it may be called with locks held.
func (s *Sub[T]) Push(v T) {
	s.mu.Lock()
	s.queue = append(s.queue, v)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Len is the number of values pushed and not yet delivered.
func (s *Sub[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Stop ends the subscription: Run returns and Out is closed, whatever is still
// queued. It is idempotent.
func (s *Sub[T]) Stop() { s.once.Do(func() { close(s.done) }) }

// Run delivers queued values to Out until Stop, then closes Out.
func (s *Sub[T]) Run() {
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		v := s.queue[0]
		var zero T
		s.queue[0] = zero
		s.queue = s.queue[1:]
		if len(s.queue) == 0 {
			s.queue = nil // let a burst's backing array go
		}
		s.mu.Unlock()
		select {
		case s.out <- v:
		case <-s.done:
			return
		}
	}
}

// Hub is a set of subscribers, each with a queue of its own: what a recipe
// that publishes events (a cache, a node, a service cache) keeps. Its
// owner publishes while it holds its own lock, so that no reader sees a
// state older than an event delivered, and subscribes under the same lock
// when the first values must be the current state. The zero Hub is ready
// to use; it must not be copied.
type Hub[T any] struct {
	mu     sync.Mutex
	subs   map[*Sub[T]]struct{}
	closed bool
	wg     sync.WaitGroup // the pumps
}

// Subscribe adds a subscriber whose channel first gets first, then every
// value published from now on, in order, none dropped, and returns the
// channel with a function that ends the subscription (calling it twice is
// harmless). After Close it returns a closed channel.
func (h *Hub[T]) Subscribe(first ...T) (<-chan T, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return Closed[T](), func() {}
	}
	s := New[T]()
	for _, v := range first {
		s.Push(v)
	}
	if h.subs == nil {
		h.subs = make(map[*Sub[T]]struct{})
	}
	h.subs[s] = struct{}{}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		s.Run()
	}()
	return s.Out(), func() {
		h.mu.Lock()
		delete(h.subs, s)
		h.mu.Unlock()
		s.Stop()
	}
}

// Publish queues v for every subscriber. It never blocks.
func (h *Hub[T]) Publish(v T) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		s.Push(v)
	}
}

// Close ends every subscription (what is still queued is dropped) and makes
// later Subscribes return a closed channel. It does not wait for the
// pumps: Wait does.
func (h *Hub[T]) Close() {
	h.mu.Lock()
	subs := h.subs
	h.subs = nil
	h.closed = true
	h.mu.Unlock()
	for s := range subs {
		s.Stop()
	}
}

// Closed reports whether Close was called.
func (h *Hub[T]) Closed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// Wait waits until every subscriber's pump has returned (after Close, or
// after each subscription's cancel).
func (h *Hub[T]) Wait() { h.wg.Wait() }

// IsClosed reports whether ch is closed (or has a value ready), without
// waiting.
func IsClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// CancelOnClose returns a copy of parent that is also cancelled once done
// is closed (a session's end, say). Its cancel must be called, as for
// context.WithCancel: it also stops the goroutine that waits on done.
func CancelOnClose(parent context.Context, done <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	if IsClosed(done) {
		cancel()
		return ctx, cancel
	}
	stop := make(chan struct{})
	go func() {
		select {
		case <-done:
			cancel()
		case <-stop:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() { close(stop) })
		cancel()
	}
}
