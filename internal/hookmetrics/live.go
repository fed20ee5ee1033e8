package hookmetrics

import (
	"sync"
	"time"
)

// Live is what one recipe series has now: the waits under way and the
// holdings not yet ended, each by its start. Its counts are the sizes of
// its sets, which the hooks change in pairs (a wait's Acquire and its
// outcome; a holding's Held and its Released, matched by Since), so they
// cannot drift: an end with no begin is ignored, never counted below zero.
// The zero Live is empty and ready; it must not be copied once used.
type Live struct {
	mu    sync.Mutex
	waits starts
	holds starts
}

// Now is a snapshot of a Live, for a scrape or an observation.
type Now struct {
	Waits      int           // waits under way
	Holds      int           // holdings not yet ended
	OldestWait time.Duration // age of the oldest wait; 0 when none
	OldestHold time.Duration // age of the oldest holding; 0 when none
}

// Snapshot returns the counts and the oldest ages at the time at.
func (l *Live) Snapshot(at time.Time) Now {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Now{Waits: l.waits.n, Holds: l.holds.n, OldestWait: l.waits.age(at), OldestHold: l.holds.age(at)}
}

// BeginWait adds a wait that started at t.
func (l *Live) BeginWait(t time.Time) { l.begin(&l.waits, t) }

// EndWait removes the wait that started at t; nothing when there is none.
func (l *Live) EndWait(t time.Time) { l.end(&l.waits, t) }

// BeginHold adds a holding that started at t (the hook's Since).
func (l *Live) BeginHold(t time.Time) { l.begin(&l.holds, t) }

// EndHold removes the holding that started at t; nothing when there is
// none.
func (l *Live) EndHold(t time.Time) { l.end(&l.holds, t) }

func (l *Live) begin(s *starts, t time.Time) {
	l.mu.Lock()
	s.add(t)
	l.mu.Unlock()
}

func (l *Live) end(s *starts, t time.Time) {
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
