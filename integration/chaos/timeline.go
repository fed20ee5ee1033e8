package chaos

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Event is one line of a timeline: who did or saw what, and when.
type Event struct {
	At   time.Time
	Who  string
	What string
}

// Timeline collects events from every participant and from the engine, on
// one process clock, so that a failure can be read without rerunning.
type Timeline struct {
	Origin time.Time // instants are printed relative to it

	mu     sync.Mutex
	events []Event
}

// NewTimeline returns a timeline whose origin is now.
func NewTimeline() *Timeline { return &Timeline{Origin: time.Now()} }

// Add notes an event at the current instant.
func (t *Timeline) Add(who, what string) { t.AddAt(time.Now(), who, what) }

// AddAt notes an event at instant at.
func (t *Timeline) AddAt(at time.Time, who, what string) {
	t.mu.Lock()
	t.events = append(t.events, Event{At: at, Who: who, What: what})
	t.mu.Unlock()
}

// Around renders the events within w of instant at, in order, with mark
// placed at instant at.
func (t *Timeline) Around(at time.Time, w time.Duration, mark string) string {
	t.mu.Lock()
	evs := append([]Event(nil), t.events...)
	t.mu.Unlock()
	evs = append(evs, Event{At: at, Who: "!!", What: mark})
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].At.Before(evs[j].At) })
	var b strings.Builder
	for _, e := range evs {
		if e.At.Before(at.Add(-w)) || e.At.After(at.Add(w)) {
			continue
		}
		fmt.Fprintf(&b, "  %9.3fs %-6s %s\n", e.At.Sub(t.Origin).Seconds(), e.Who, e.What)
	}
	return b.String()
}

// rel formats instant at relative to the origin.
func (t *Timeline) rel(at time.Time) string {
	return fmt.Sprintf("%.3fs", at.Sub(t.Origin).Seconds())
}

// WhoHad returns who noted session id (as "session=0x..." in an event), or
// "an unknown participant".
func (t *Timeline) WhoHad(id int64) string {
	needle := fmt.Sprintf("session=0x%x", id)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.events {
		if strings.Contains(e.What, needle) {
			return e.Who
		}
	}
	return "an unknown participant"
}

// Of renders the events of who from instant since on, in order.
func (t *Timeline) Of(who string, since time.Time) string {
	t.mu.Lock()
	evs := append([]Event(nil), t.events...)
	t.mu.Unlock()
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].At.Before(evs[j].At) })
	var b strings.Builder
	for _, e := range evs {
		if e.Who == who && !e.At.Before(since) {
			fmt.Fprintf(&b, "  %9.3fs %-6s %s\n", e.At.Sub(t.Origin).Seconds(), e.Who, e.What)
		}
	}
	return b.String()
}
