package chaos

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// mutexInput is an operation on the mutex model.
type mutexInput struct {
	acquire bool
	who     int
}

// MutexModel is porcupine's model of a mutex: one holder at a time. Its
// state is the holder's number, or -1 when free.
var MutexModel = porcupine.Model{
	Init: func() any { return -1 },
	Step: func(state, input, _ any) (bool, any) {
		holder, in := state.(int), input.(mutexInput)
		if in.acquire {
			return holder == -1, in.who
		}
		return holder == in.who, -1
	},
	DescribeOperation: func(input, _ any) string {
		in := input.(mutexInput)
		if in.acquire {
			return fmt.Sprintf("acquire(p%d)", in.who)
		}
		return fmt.Sprintf("release(p%d)", in.who)
	},
}

// Operations turns the successful and open acquires into porcupine
// operations: an acquire over [Lock invoke, Lock return] (an open one
// never returns), and a release at the holding's end, the earlier of
// Unlock's invoke and Lost() closing. Failed acquires held nothing and are
// left out.
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
		ops = append(ops, porcupine.Operation{ClientId: h.Who, Input: mutexInput{true, h.Who}, Call: ns(h.Invoke), Return: ret})
		if end := h.End(); !h.Open() && !end.IsZero() {
			ops = append(ops, porcupine.Operation{ClientId: h.Who, Input: mutexInput{false, h.Who}, Call: ns(end), Return: ns(end)})
		}
	}
	return ops
}

// CheckMutex runs porcupine's linearizability check of hs against
// MutexModel; it reports whether the history is linearizable.
func CheckMutex(hs []Holding, origin time.Time) (bool, porcupine.CheckResult) {
	res, _ := porcupine.CheckOperationsVerbose(MutexModel, Operations(hs, origin), time.Minute)
	return res == porcupine.Ok, res
}

// Overlap is a pair of holdings that both believed they held at once.
type Overlap struct {
	A, B Holding // A was granted first
}

// At is the instant at which the overlap began: B's grant.
func (o Overlap) At() time.Time { return o.B.Return }

// Overlaps lists every pair of granted holdings whose intervals [grant,
// end] intersect (a holding without an end lasts forever).
func Overlaps(hs []Holding) []Overlap {
	g := granted(hs)
	var out []Overlap
	for i, a := range g {
		for _, b := range g[i+1:] {
			if end := a.End(); end.IsZero() || end.After(b.Return) {
				out = append(out, Overlap{a, b})
			}
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

// Margin is, for a holding ended by its loss signal, the time from Lost()
// closing to the next grant to anyone else (negative: an overlap).
type Margin struct {
	Holding Holding
	Next    Holding
	D       time.Duration
}

// Margins lists the margin of every holding ended by a fault that was
// followed by another participant's grant.
func Margins(hs []Holding) []Margin {
	g := granted(hs)
	var out []Margin
	for i, h := range g {
		if !h.ByFault() {
			continue
		}
		for _, n := range g[i+1:] {
			if n.Who != h.Who {
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
