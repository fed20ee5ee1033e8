package chaos

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// Capacity is what a recipe lets be held at once, as porcupine's model and
// the overlap and margin checks see it: Units in all, each holding taking
// its weight (Holding.W). A mutex or an election is OneHolder; a semaphore
// has one unit per lease; a read/write lock gives a writer every unit and a
// reader one, so that one writer or many readers fit.
type Capacity struct {
	Units int
	// Downgrade lets a participant that holds every unit (a writer) take
	// more: its read lock, taken before its write lock is released.
	Downgrade bool
	// Limits, when set, lower the units over time (a semaphore whose limit
	// comes from a shared count): see LimitAt. Units stays the most ever
	// allowed, which is what porcupine's model checks.
	Limits []LimitChange
	// Grace is how long after a limit change returned an acquirer may
	// still act on the limit it saw before (its copy of the count is
	// updated by a watch, a round trip later).
	Grace time.Duration
	// PerKind makes every check hold each kind of holding (Holding.Kind)
	// to the capacity on its own: a multi-lock's holdings are one kind per
	// path, each path one holder at a time.
	PerKind bool
}

// byKind splits hs by Kind, in the order the kinds first appear.
func byKind(hs []Holding) [][]Holding {
	idx := map[string]int{}
	var out [][]Holding
	for _, h := range hs {
		i, ok := idx[h.Kind]
		if !ok {
			i = len(out)
			idx[h.Kind] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], h)
	}
	return out
}

// LimitAt returns the units allowed for a grant at instant t: Units with
// no limit changes; else the larger of the limit last set at least Grace
// before t and every limit whose set was under way, or returned less than
// Grace before t (or failed: its outcome is unknown), since then.
func (c Capacity) LimitAt(t time.Time) int {
	if len(c.Limits) == 0 {
		return c.Units
	}
	settled, allowed := c.Units, 0
	for _, l := range c.Limits {
		if l.Invoke.After(t) {
			continue
		}
		if l.OK && !l.Return.Add(c.Grace).After(t) {
			settled, allowed = l.Value, 0 // in force everywhere by t: what came before no longer counts
			continue
		}
		allowed = max(allowed, l.Value)
	}
	return min(max(settled, allowed), c.Units)
}

// OneHolder is the capacity of a mutex and of an election: one holder.
var OneHolder = Capacity{Units: 1}

// MaxParts is the most participants a scenario may have (the model's
// state is an array, so that porcupine can compare states with ==).
const MaxParts = 16

// capState is what each participant holds, in units.
type capState [MaxParts]int32

// capInput is an operation on the capacity model.
type capInput struct {
	acquire bool
	who     int
	w       int32
	kind    string
}

// Model returns porcupine's model of c: an acquire is legal when its
// weight fits beside what is held (or its participant holds every unit and
// c allows a downgrade); a release is legal when its participant holds at
// least its weight.
func (c Capacity) Model() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return capState{} },
		Step: func(state, input, _ any) (bool, any) {
			st, in := state.(capState), input.(capInput)
			if in.acquire {
				if !c.fits(st, in.who, in.w) {
					return false, st
				}
				st[in.who] += in.w
				return true, st
			}
			if st[in.who] < in.w {
				return false, st
			}
			st[in.who] -= in.w
			return true, st
		},
		DescribeOperation: func(input, _ any) string {
			in := input.(capInput)
			op := "release"
			if in.acquire {
				op = "acquire"
			}
			return fmt.Sprintf("%s(%s %s w=%d)", op, PartName(in.who), in.kind, in.w)
		},
	}
}

// fits reports whether who may take w more units in state st.
func (c Capacity) fits(st capState, who int, w int32) bool { return c.fitsIn(st, who, w, c.Units) }

// fitsIn is fits with units allowed in all.
func (c Capacity) fitsIn(st capState, who int, w int32, units int) bool {
	var sum int32
	for _, u := range st {
		sum += u
	}
	u := int32(max(units, 1))
	return sum+w <= u || (c.Downgrade && st[who] >= int32(max(c.Units, 1)))
}

// Operations turns the successful and open acquires into porcupine
// operations: an acquire over [invoke, return] (an open one never
// returns), and a release at the holding's end, the earlier of its release
// call and its loss signal. Failed acquires held nothing and are left out.
func Operations(hs []Holding, origin time.Time) []porcupine.Operation {
	var ops []porcupine.Operation
	ns := func(t time.Time) int64 { return t.Sub(origin).Nanoseconds() }
	for _, h := range hs {
		if !h.Open() && !h.OK {
			continue
		}
		ret := int64(math.MaxInt64)
		if !h.Open() {
			ret = ns(h.Return)
		}
		w := int32(h.W())
		ops = append(ops, porcupine.Operation{ClientId: h.Who, Input: capInput{true, h.Who, w, h.Kind}, Call: ns(h.Invoke), Return: ret})
		if end := h.End(); !h.Open() && !end.IsZero() {
			ops = append(ops, porcupine.Operation{ClientId: h.Who, Input: capInput{false, h.Who, w, h.Kind}, Call: ns(end), Return: ns(end)})
		}
	}
	return ops
}

// Check runs porcupine's linearizability check of hs against c's model;
// it reports whether the history is linearizable.
func (c Capacity) Check(hs []Holding, origin time.Time) (bool, porcupine.CheckResult) {
	res, _ := porcupine.CheckOperationsVerbose(c.Model(), Operations(hs, origin), time.Minute)
	return res == porcupine.Ok, res
}

// Overlap is a grant that did not fit beside the holdings its holders
// still believed they held.
type Overlap struct {
	A, B Holding // B's grant did not fit; A is the earliest of the others still held then
}

// At is the instant at which the overlap began: B's grant.
func (o Overlap) At() time.Time { return o.B.Return }

// heldAt returns what each participant believed it held at instant at,
// from the holdings in g other than skip (an index into g).
func heldAt(g []Holding, at time.Time, skip int) (st capState, first int) {
	first = -1
	for i, a := range g {
		if i == skip || a.Return.After(at) {
			continue
		}
		if end := a.End(); !end.IsZero() && !end.After(at) {
			continue
		}
		st[a.Who%MaxParts] += int32(a.W())
		if first < 0 && a.Who != g[skip].Who {
			first = i
		}
	}
	return st, first
}

// Overlaps lists every grant that did not fit, under c (and its limit at
// that instant, LimitAt), beside what the
// other holders still believed they held at that instant (a holding
// without an end lasts forever). For one holder: every pair of holdings
// whose intervals [grant, end] intersect, counted at the later grant.
func (c Capacity) Overlaps(hs []Holding) []Overlap {
	g := granted(hs)
	var out []Overlap
	for i, b := range g {
		st, first := heldAt(g, b.Return, i)
		if !c.fitsIn(st, b.Who%MaxParts, int32(b.W()), c.LimitAt(b.Return)) && first >= 0 {
			out = append(out, Overlap{g[first], b})
		}
	}
	return out
}

// granted returns the granted holdings in grant order.
func granted(hs []Holding) []Holding {
	var g []Holding
	for _, h := range hs {
		if h.OK {
			g = append(g, h)
		}
	}
	slices.SortStableFunc(g, func(a, b Holding) int { return a.Return.Compare(b.Return) })
	return g
}

// Margin is, for a holding ended by its loss signal, the time from that
// signal to the first later grant that needed its units (negative: an
// overlap).
type Margin struct {
	Holding Holding
	Next    Holding
	D       time.Duration
}

// Margins lists, for every holding ended by a fault, the margin to the
// first grant to another participant that would not have fitted had the
// holding still been held. For one holder that is the next grant to anyone
// else.
func (c Capacity) Margins(hs []Holding) []Margin {
	g := granted(hs)
	var out []Margin
	for i, h := range g {
		if !h.ByFault() {
			continue
		}
		for j := i + 1; j < len(g); j++ {
			n := g[j]
			if n.Who == h.Who {
				continue
			}
			st, _ := heldAt(g, n.Return, j)
			if end := h.End(); !end.After(n.Return) {
				st[h.Who%MaxParts] += int32(h.W()) // count h as still held
			}
			if !c.fitsIn(st, n.Who%MaxParts, int32(n.W()), c.LimitAt(n.Return)) {
				out = append(out, Margin{h, n, n.Return.Sub(h.Lost)})
				break
			}
		}
	}
	return out
}

// MarginStats returns the smallest and the median margin (0, 0 for none).
func MarginStats(ms []Margin) (minD, median time.Duration) {
	if len(ms) == 0 {
		return 0, 0
	}
	ds := make([]time.Duration, len(ms))
	for i, m := range ms {
		ds[i] = m.D
	}
	slices.Sort(ds)
	return ds[0], ds[len(ds)/2]
}
