package zkprom

import (
	"sync"
	"time"
)

// live is what one recipe series has now: the waits under way and the
// holdings not yet ended, each by its start. Its counts are the sizes of
// its sets, which the hooks change in pairs (a wait's Acquire and its
// outcome; a holding's Held and its Released, matched by Since), so they
// cannot drift: an end with no begin is ignored, never counted below zero.
type live struct {
	mu    sync.Mutex
	waits starts
	holds starts
}

// now is a snapshot of a live for a scrape.
type now struct {
	waits, holds           int
	oldestWait, oldestHold time.Duration // 0 when none
}

func (l *live) snapshot(at time.Time) now {
	l.mu.Lock()
	defer l.mu.Unlock()
	return now{waits: l.waits.n, holds: l.holds.n, oldestWait: l.waits.age(at), oldestHold: l.holds.age(at)}
}

func (l *live) begin(s *starts, t time.Time) {
	l.mu.Lock()
	s.add(t)
	l.mu.Unlock()
}

func (l *live) end(s *starts, t time.Time) {
	l.mu.Lock()
	s.remove(t)
	l.mu.Unlock()
}

// starts is a multiset of start times, keyed by their wall-clock
// nanoseconds (quick to hash); each keeps the time itself, whose monotonic
// reading the age is measured by.
type starts struct {
	n  int
	at map[int64]start
}

type start struct {
	t time.Time
	n int
}

func (s *starts) add(t time.Time) {
	if s.at == nil {
		s.at = make(map[int64]start)
	}
	k := t.UnixNano()
	e := s.at[k]
	e.t, e.n = t, e.n+1
	s.at[k] = e
	s.n++
}

// remove takes one t out; nothing when there is none.
func (s *starts) remove(t time.Time) {
	k := t.UnixNano()
	switch e := s.at[k]; e.n {
	case 0:
		return
	case 1:
		delete(s.at, k)
	default:
		e.n--
		s.at[k] = e
	}
	s.n--
}

// age is how long ago the oldest start was, at the time at; 0 when empty.
func (s *starts) age(at time.Time) time.Duration {
	var oldest time.Time
	for _, e := range s.at {
		if oldest.IsZero() || e.t.Before(oldest) {
			oldest = e.t
		}
	}
	if oldest.IsZero() {
		return 0
	}
	return max(at.Sub(oldest), 0)
}
