// Package pubsub is the one unbounded, ordered hand-off the library's
// subscriptions stand on: the client's state changes and node events, and the
// cache's events. A producer that must never block (go-zookeeper's event
// callback, a cache's loop) pushes; one goroutine per subscriber hands the
// values on, in order, to a channel read at the subscriber's own pace.
package pubsub

import "sync"

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
