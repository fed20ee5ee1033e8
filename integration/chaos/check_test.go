package chaos

import (
	"context"
	"testing"
	"time"
)

// at returns the origin plus ms milliseconds.
func at(origin time.Time, ms int) time.Time { return origin.Add(time.Duration(ms) * time.Millisecond) }

func TestChecksOnHandMadeHistories(t *testing.T) {
	o := time.Now()
	seq := []Holding{
		{Who: 0, Invoke: at(o, 0), Return: at(o, 10), OK: true, Token: 1, Unlock: at(o, 100)},
		{Who: 1, Invoke: at(o, 5), Return: at(o, 120), OK: true, Token: 2, Lost: at(o, 200)},
		{Who: 0, Invoke: at(o, 150), Return: at(o, 300), OK: true, Token: 3, Unlock: at(o, 400)},
		{Who: 2, Invoke: at(o, 160), Return: at(o, 170)}, // failed: held nothing
		{Who: 2, Invoke: at(o, 450)}, // outcome unknown
	}
	if ok, res := OneHolder.Check(seq, o); !ok {
		t.Fatalf("sequential holdings: porcupine says %v", res)
	}
	if n := len(OneHolder.Overlaps(seq)); n != 0 {
		t.Fatalf("sequential holdings: %d overlaps", n)
	}
	ms := OneHolder.Margins(seq)
	if len(ms) != 1 || ms[0].D != 100*time.Millisecond {
		t.Fatalf("margins: %+v", ms)
	}

	// p1's Lost() closes only after p0 was granted again: an overlap.
	bad := append([]Holding(nil), seq[:3]...)
	bad[1].Lost = at(o, 350)
	if ok, _ := OneHolder.Check(bad, o); ok {
		t.Fatal("overlapping holdings: porcupine found them linearizable")
	}
	if n := len(OneHolder.Overlaps(bad)); n != 1 {
		t.Fatalf("overlapping holdings: %d overlaps, want 1", n)
	}
	if m := OneHolder.Margins(bad); len(m) != 1 || m[0].D >= 0 {
		t.Fatalf("overlapping holdings: margins %+v, want one negative", m)
	}

	// A holding that never ended overlaps every later grant.
	open := append([]Holding(nil), seq[:2]...)
	open[0].Unlock = time.Time{}
	if ok, _ := OneHolder.Check(open, o); ok {
		t.Fatal("unended holding: porcupine found it linearizable")
	}
}

func TestStore(t *testing.T) {
	var s Store
	s.Granted(5)
	if !s.Write(5) || s.Write(4) || !s.Write(5) {
		t.Fatal("fence: want 5 accepted, 4 refused, 5 accepted")
	}
	s.Granted(9)
	if !s.Write(6) { // accepted by the fence, but a newer holding exists
		t.Fatal("fence refused 6")
	}
	if st := s.Stats(); st != (StoreStats{Accepted: 3, Refused: 1, StaleAccepted: 1}) {
		t.Fatalf("stats %+v", st)
	}
}

// TestExpiryMargins: a margin counts when the holder's session ended with
// no reconnect between the loss signal and its end (or when it is <= 0);
// a holder that got its connection back (and could release) does not.
func TestExpiryMargins(t *testing.T) {
	o := time.Now()
	m := func(sess int64, lostMs, d int) Margin {
		return Margin{Holding: Holding{Session: sess, Lost: at(o, lostMs)}, D: time.Duration(d) * time.Millisecond}
	}
	lost := map[int64]time.Time{1: at(o, 2500), 2: at(o, 4000)}
	resumed := map[int64][]time.Time{1: {at(o, 500)}, 2: {at(o, 1010)}, 3: {at(o, 1010)}}
	signals, kept := ExpiryMargins([]Margin{
		m(1, 1000, 700), // session 1 lost at 2.5 s, resumed only before the signal: kept
		m(2, 1000, 20),  // session 2 resumed 10 ms after the signal, lost later: left out
		m(3, 1000, 30),  // session 3 never lost: left out
		m(3, 1000, -5),  // <= 0: always kept
		m(0, 1000, 40),  // session unknown: left out
	}, lost, resumed)
	if signals != 5 || len(kept) != 2 || kept[0].D != 700*time.Millisecond || kept[1].D != -5*time.Millisecond {
		t.Fatalf("signals %d, kept %+v", signals, kept)
	}
}

// TestAllGrantedSince: every participant must have a grant at or after
// the instant; failed and earlier acquires do not count.
func TestAllGrantedSince(t *testing.T) {
	h := NewHistory(NewTimeline())
	calm := time.Now()
	h.Invoke(0).Granted(calm.Add(-time.Second), 1) // before the calm phase
	h.Invoke(1).Failed(context.Canceled)
	h.Invoke(1).Granted(calm.Add(time.Second), 2)
	if h.AllGrantedSince(calm, 2) {
		t.Fatal("p0 has no grant in the calm phase")
	}
	h.Invoke(0).Granted(calm, 3)
	if !h.AllGrantedSince(calm, 2) {
		t.Fatal("both were granted in the calm phase")
	}
}

// TestPerKind: with PerKind, holdings of different kinds (a multi-lock's
// paths) may overlap, holdings of one kind may not; porcupine and the
// overlap check agree.
func TestPerKind(t *testing.T) {
	origin := time.Now()
	at := func(ms int) time.Time { return origin.Add(time.Duration(ms) * time.Millisecond) }
	h := func(who int, kind string, from, to int) Holding {
		return Holding{Who: who, Kind: kind, Invoke: at(from), Return: at(from + 1), OK: true, Unlock: at(to)}
	}
	apart := []Holding{h(0, "a", 0, 100), h(1, "b", 10, 90), h(1, "a", 110, 200), h(0, "b", 120, 130)}
	clash := append(append([]Holding(nil), apart...), h(2, "a", 50, 60))
	per := Capacity{Units: 1, PerKind: true}
	one := Capacity{Units: 1}
	r := Analyze(1, &Engine{}, historyOf(apart), &Store{}, NewTimeline(), nil, at(0), 3, per)
	if !r.Linearizable || len(r.Overlaps) != 0 {
		t.Errorf("per kind, different paths overlapping: linearizable=%v overlaps=%d", r.Linearizable, len(r.Overlaps))
	}
	r = Analyze(1, &Engine{}, historyOf(apart), &Store{}, NewTimeline(), nil, at(0), 3, one)
	if r.Linearizable || len(r.Overlaps) == 0 {
		t.Error("one capacity for all kinds: the overlap of a and b was not found")
	}
	r = Analyze(1, &Engine{}, historyOf(clash), &Store{}, NewTimeline(), nil, at(0), 3, per)
	if r.Linearizable || len(r.Overlaps) != 1 {
		t.Errorf("per kind, two holders of a: linearizable=%v overlaps=%d", r.Linearizable, len(r.Overlaps))
	}
}

// historyOf is a History holding hs.
func historyOf(hs []Holding) *History {
	h := NewHistory(NewTimeline())
	for i := range hs {
		x := hs[i]
		h.hold = append(h.hold, &x)
	}
	return h
}
