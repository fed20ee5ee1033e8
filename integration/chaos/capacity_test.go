package chaos

import (
	"testing"
	"time"
)

// held is a granted holding of who, of kind and weight, invoked at inv,
// granted at ret and released at unlock (milliseconds after o; unlock < 0:
// never released).
func held(o time.Time, who int, kind string, weight, inv, ret, unlock int) Holding {
	h := Holding{Who: who, Kind: kind, Weight: weight, Invoke: at(o, inv), Return: at(o, ret), OK: true, Token: int64(ret)}
	if unlock >= 0 {
		h.Unlock = at(o, unlock)
	}
	return h
}

// wantCapacity checks hs against c: porcupine's verdict and the number of
// overlaps must be as wanted.
func wantCapacity(t *testing.T, name string, c Capacity, hs []Holding, o time.Time, legal bool, overlaps int) []Overlap {
	t.Helper()
	if ok, res := c.Check(hs, o); ok != legal {
		t.Errorf("%s: porcupine says linearizable=%v (%v), want %v", name, ok, res, legal)
	}
	ov := c.Overlaps(hs)
	if len(ov) != overlaps {
		t.Errorf("%s: %d overlaps, want %d: %+v", name, len(ov), overlaps, ov)
	}
	return ov
}

func TestCapacitySemaphore(t *testing.T) {
	o := time.Now()
	two := Capacity{Units: 2}
	lease := func(who, inv, ret, unlock int) Holding { return held(o, who, "lease", 1, inv, ret, unlock) }

	// A third lease granted while two are held: one too many.
	three := []Holding{lease(0, 0, 10, 300), lease(1, 5, 20, 300), lease(2, 60, 100, 400)}
	ov := wantCapacity(t, "third lease beside two", two, three, o, false, 1)
	if len(ov) == 1 && (ov[0].B.Who != 2 || ov[0].A.Who != 0) {
		t.Errorf("third lease beside two: overlap %+v, want p2's grant against p0", ov[0])
	}

	// The same, but p0 released before p2's acquire returned: legal.
	three[0].Unlock = at(o, 50)
	wantCapacity(t, "third lease after a release", two, three, o, true, 0)

	// Two leases of one AcquireN share invoke and return; with a third
	// participant's lease held, the pair fits only once it is released.
	pair := []Holding{lease(0, 0, 10, 100), lease(1, 20, 150, 300), lease(1, 20, 150, 300)}
	wantCapacity(t, "AcquireN after a release", two, pair, o, true, 0)
	pair[0].Unlock = at(o, 200)
	wantCapacity(t, "AcquireN beside a lease", two, pair, o, false, 2)
}

func TestCapacitySemaphoreMargins(t *testing.T) {
	o := time.Now()
	two := Capacity{Units: 2}
	lease := func(who, inv, ret, unlock int) Holding { return held(o, who, "lease", 1, inv, ret, unlock) }

	// p0's lease ends by its loss signal at 200 ms. p1's grant at 300 fits
	// beside it even had it still been held; p2's at 350 would not have
	// (p1 holds): the margin is 150 ms, to p2.
	lost := lease(0, 0, 10, 250)
	lost.Lost = at(o, 200)
	hs := []Holding{lost, lease(1, 290, 300, 600), lease(2, 320, 350, 700)}
	wantCapacity(t, "lost lease", two, hs, o, true, 0)
	ms := two.Margins(hs)
	if len(ms) != 1 || ms[0].Next.Who != 2 || ms[0].D != 150*time.Millisecond {
		t.Fatalf("margins %+v, want one of 150ms to p2", ms)
	}

	// The loss signal came only after p2's grant: a negative margin, an
	// overlap, and porcupine refuses it.
	hs[0].Lost, hs[0].Unlock = at(o, 400), at(o, 450)
	wantCapacity(t, "late loss signal", two, hs, o, false, 1)
	if ms := two.Margins(hs); len(ms) != 1 || ms[0].D != -50*time.Millisecond {
		t.Fatalf("late loss signal: margins %+v, want one of -50ms", ms)
	}

	// A holding released by its holder has no margin.
	hs[0].Lost = time.Time{}
	hs[0].Unlock = at(o, 200)
	if ms := two.Margins(hs); len(ms) != 0 {
		t.Fatalf("released lease: margins %+v, want none", ms)
	}
}

func TestCapacityRWLock(t *testing.T) {
	o := time.Now()
	c := Capacity{Units: 64, Downgrade: true}
	read := func(who, inv, ret, unlock int) Holding { return held(o, who, "read", 1, inv, ret, unlock) }
	write := func(who, inv, ret, unlock int) Holding { return held(o, who, "write", 64, inv, ret, unlock) }

	wantCapacity(t, "two readers", c, []Holding{read(0, 0, 10, 100), read(1, 5, 20, 120)}, o, true, 0)

	ov := wantCapacity(t, "writer beside a reader", c, []Holding{read(0, 0, 10, 100), write(1, 20, 50, 150)}, o, false, 1)
	if len(ov) == 1 && (ov[0].A.Kind != "read" || ov[0].B.Kind != "write") {
		t.Errorf("writer beside a reader: overlap %+v, want p1's write against p0's read", ov[0])
	}

	wantCapacity(t, "writer after a reader", c, []Holding{read(0, 0, 10, 100), write(1, 20, 120, 150)}, o, true, 0)

	// p0 writes, takes its read lock while it still writes (a downgrade),
	// lets the write go at 200; p1 reads from 250, beside p0's read; p2's
	// write is granted once both reads are released.
	down := []Holding{
		write(0, 0, 10, 200),
		read(0, 150, 160, 400),
		read(1, 100, 250, 300),
		write(2, 180, 450, 500),
	}
	wantCapacity(t, "downgrade", c, down, o, true, 0)

	// A writer granted while p0's downgraded read still holds.
	bad := append([]Holding(nil), down[:3]...)
	bad = append(bad, write(2, 180, 350, 500))
	ov = wantCapacity(t, "writer beside a downgraded read", c, bad, o, false, 1)
	if len(ov) == 1 && (ov[0].A.Who != 0 || ov[0].A.Kind != "read") {
		t.Errorf("writer beside a downgraded read: overlap %+v, want against p0's read", ov[0])
	}

	// A reader granted while p0 still holds its write lock: only p0 itself
	// may read beside its write.
	early := append([]Holding(nil), down[:2]...)
	early = append(early, read(1, 100, 180, 300))
	wantCapacity(t, "reader beside another's write", c, early, o, false, 1)
}

// TestLimitAt: with limit changes, the units allowed at an instant are the
// limit settled Grace before it, or any limit being set since (a set
// under way, just returned or failed); never above Units.
func TestLimitAt(t *testing.T) {
	o := time.Now()
	c := Capacity{Units: 3, Grace: 100 * time.Millisecond, Limits: []LimitChange{
		{Invoke: at(o, 1000), Return: at(o, 1010), Value: 2, OK: true},
		{Invoke: at(o, 2000), Return: at(o, 2010), Value: 3, OK: true},
		{Invoke: at(o, 3000), Return: at(o, 3010), Value: 2, OK: false}, // outcome unknown
		{Invoke: at(o, 4000), Return: at(o, 4010), Value: 2, OK: true},
	}}
	for _, tc := range []struct {
		ms   int
		want int
	}{
		{500, 3},  // before any change: Units
		{1005, 3}, // lowering under way: the old limit still allowed
		{1100, 3}, // returned less than Grace before
		{1200, 2}, // settled
		{2005, 3}, // raising under way: the new limit allowed at once
		{2500, 3},
		{3500, 3}, // a failed lowering: 2 or 3, so 3
		{4500, 2}, // a later lowering settled: the failed one no longer counts
	} {
		if got := c.LimitAt(at(o, tc.ms)); got != tc.want {
			t.Errorf("LimitAt(%d ms) = %d, want %d", tc.ms, got, tc.want)
		}
	}
	// Three leases believed held at 1500 ms, when the limit is 2: an overlap
	// that the static Units (3) would not show.
	hs := []Holding{
		{Who: 0, Kind: "lease", Invoke: at(o, 1300), Return: at(o, 1310), OK: true, Unlock: at(o, 1800)},
		{Who: 1, Kind: "lease", Invoke: at(o, 1300), Return: at(o, 1320), OK: true, Unlock: at(o, 1800)},
		{Who: 2, Kind: "lease", Invoke: at(o, 1400), Return: at(o, 1500), OK: true, Unlock: at(o, 1800)},
	}
	if n := len(c.Overlaps(hs)); n != 1 {
		t.Fatalf("%d overlaps under the lowered limit, want 1", n)
	}
	if n := len(Capacity{Units: 3}.Overlaps(hs)); n != 0 {
		t.Fatalf("%d overlaps without limit changes, want 0", n)
	}
}
