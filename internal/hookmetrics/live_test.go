package hookmetrics

import (
	"sync"
	"testing"
	"time"
)

// TestLiveCounts: waits and holdings are counted apart, each begin by its
// end; an end with no begin, or a second end, changes nothing.
func TestLiveCounts(t *testing.T) {
	var l Live
	at := time.Now()
	if n := l.Snapshot(at); n != (Now{}) {
		t.Fatalf("empty Live: %+v", n)
	}
	w1, w2 := at.Add(-time.Second), at.Add(-2*time.Second)
	l.BeginWait(w1)
	l.BeginWait(w2)
	l.BeginHold(w1)
	if n := l.Snapshot(at); n.Waits != 2 || n.Holds != 1 {
		t.Fatalf("two waits, one holding: %+v", n)
	}
	l.EndHold(w2) // never begun as a holding
	l.EndWait(at) // never begun
	if n := l.Snapshot(at); n.Waits != 2 || n.Holds != 1 {
		t.Fatalf("ends with no begin changed the counts: %+v", n)
	}
	l.EndWait(w1)
	l.EndWait(w1) // twice
	l.EndHold(w1)
	if n := l.Snapshot(at); n.Waits != 1 || n.Holds != 0 {
		t.Fatalf("after the ends: %+v", n)
	}
	l.EndWait(w2)
	if n := l.Snapshot(at); n != (Now{}) {
		t.Fatalf("all ended: %+v", n)
	}
}

// TestLiveSameStart: starts at the same instant are each counted, and each
// end takes one of them.
func TestLiveSameStart(t *testing.T) {
	var l Live
	since := time.Now().Add(-time.Minute)
	for range 3 {
		l.BeginHold(since)
	}
	for want := 2; want >= 0; want-- {
		l.EndHold(since)
		if n := l.Snapshot(time.Now()); n.Holds != want {
			t.Fatalf("holds %d, want %d", n.Holds, want)
		}
	}
	l.EndHold(since)
	if n := l.Snapshot(time.Now()); n.Holds != 0 {
		t.Fatalf("holds %d after one end too many", n.Holds)
	}
}

// TestLiveOldest: the ages are those of the oldest start still in, 0 when
// none, and never negative (a start after the snapshot's time).
func TestLiveOldest(t *testing.T) {
	var l Live
	at := time.Now()
	hour, minute := at.Add(-time.Hour), at.Add(-time.Minute)
	l.BeginHold(minute)
	l.BeginHold(hour)
	l.BeginWait(minute)
	n := l.Snapshot(at)
	if n.OldestHold != time.Hour || n.OldestWait != time.Minute {
		t.Fatalf("oldest: %+v", n)
	}
	l.EndHold(hour)
	if n := l.Snapshot(at); n.OldestHold != time.Minute {
		t.Fatalf("oldest holding %v after the hour-old one ended, want 1m", n.OldestHold)
	}
	l.BeginWait(at.Add(time.Hour))
	l.EndWait(minute)
	if n := l.Snapshot(at); n.OldestWait != 0 || n.Waits != 1 {
		t.Fatalf("a wait started after the snapshot's time: %+v", n)
	}
	l.EndHold(minute)
	if n := l.Snapshot(at); n.OldestHold != 0 {
		t.Fatalf("no holding, oldest %v", n.OldestHold)
	}
}

// TestLiveConcurrent: begins and ends from many goroutines, with
// snapshots beside them, leave the counts at zero (run with -race).
func TestLiveConcurrent(t *testing.T) {
	var l Live
	var wg sync.WaitGroup
	base := time.Now()
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				s := base.Add(time.Duration(g*1000+i) * time.Nanosecond)
				l.BeginWait(s)
				l.BeginHold(s)
				_ = l.Snapshot(time.Now())
				l.EndWait(s)
				l.EndHold(s)
			}
		})
	}
	wg.Wait()
	if n := l.Snapshot(time.Now()); n != (Now{}) {
		t.Fatalf("after balanced begins and ends: %+v", n)
	}
}
