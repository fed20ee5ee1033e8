package client

import "sync"

// Subscribe returns a channel that receives every state transition from now
// on, in order, none dropped however slowly it is read (each subscriber has
// its own unbounded queue), and a cancel function. The channel is closed by
// cancel or by Close. Calling cancel more than once is harmless.
func (c *Client) Subscribe() (<-chan StateChange, func()) {
	s := &subscriber{
		wake: make(chan struct{}, 1),
		out:  make(chan StateChange),
		done: make(chan struct{}),
	}
	if c == nil || c.closedCh == nil {
		close(s.out)
		return s.out, func() {}
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		close(s.out)
		return s.out, func() {}
	}
	if c.subs == nil {
		c.subs = make(map[*subscriber]struct{})
	}
	c.subs[s] = struct{}{}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		s.pump()
	}()
	cancel := func() {
		c.mu.Lock()
		delete(c.subs, s)
		c.mu.Unlock()
		s.stop()
	}
	return s.out, cancel
}

type subscriber struct {
	mu    sync.Mutex
	queue []StateChange
	wake  chan struct{}
	out   chan StateChange
	done  chan struct{}
	once  sync.Once
}

// push never blocks: it is called with the client's lock held.
func (s *subscriber) push(ev StateChange) {
	s.mu.Lock()
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) stop() { s.once.Do(func() { close(s.done) }) }

func (s *subscriber) pump() {
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
		ev := s.queue[0]
		s.queue[0] = StateChange{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- ev:
		case <-s.done:
			return
		}
	}
}
