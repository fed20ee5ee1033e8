package client

import "sync"

// Session is one ZooKeeper session as the client lived it: an epoch. Its
// Done channel closes the moment the session is Lost or the client closes,
// and never reopens: a later session is a different *Session. Recipes bind
// the ephemeral nodes they create to the Session that created them.
type Session struct {
	id   int64
	done chan struct{}

	mu  sync.Mutex
	err error
}

func newSession(id int64) *Session {
	return &Session{id: id, done: make(chan struct{})}
}

// ID is ZooKeeper's session id, the ephemeralOwner of the session's nodes.
func (s *Session) ID() int64 { return s.id }

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is nil while the session lives; afterwards zkrecipes.ErrSessionLost or zkrecipes.ErrClosed.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// end closes the session with cause err; it reports whether this call ended it.
func (s *Session) end(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false
	}
	s.err = err
	close(s.done)
	return true
}

func (s *Session) ended() bool { return isClosedChan(s.done) }
