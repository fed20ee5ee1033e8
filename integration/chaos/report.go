package chaos

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Result is what a scenario's checks found.
type Result struct {
	Recipe       string
	Seed         uint64
	Faults       map[string]int // by kind (and role, see Engine.Counts)
	Grants       int
	Open         int // acquires whose outcome is unknown
	Linearizable bool
	Overlaps     []Overlap
	Store        StoreStats
	Margins      []Margin  // of holdings whose session expired, and every one <= 0 (see ExpiryMargins)
	Signals      int       // holdings ended by their loss signal and followed by a grant that needed them
	Orphans      []Orphan  // nodes left under the recipe's paths once the workers stopped
	Unreaped     []string  // recipe paths still there once the clients closed
	CalmStuck    []string  // participants without a grant in the calm phase
	Problems     []string  // what workers found wrong (History.Problem)
	CalmStart    time.Time // when the calm phase began
	// Unsettled is what the workload's own check found wrong after the
	// calm phase (see Scenario.Settle); Settled says whether it ran.
	Unsettled []Unsettled
	Settled   bool
}

// Unsettled is one problem a workload's Settle check found: who (a
// participant's name, or "" for the scenario) and what.
type Unsettled struct {
	Who     string
	Problem string
}

func (u Unsettled) String() string {
	if u.Who == "" {
		return u.Problem
	}
	return u.Who + ": " + u.Problem
}

// Analyze runs every check over a scenario's history and store. orphans
// are the nodes left under the lock path; calmStart is when the calm phase
// began; n the number of participants.
func Analyze(seed uint64, e *Engine, h *History, s *Store, tl *Timeline, orphans []Orphan, calmStart time.Time, n int, c Capacity) Result {
	hs := h.Holdings()
	if lim := h.Limits(); len(lim) > 0 {
		c.Limits = lim
		if c.Grace == 0 {
			c.Grace = e.Session // the watch on the count is re-set on reconnect; a session timeout is ample
		}
	}
	r := Result{Seed: seed, Faults: e.Counts(), Store: s.Stats(), Orphans: orphans, CalmStart: calmStart, Problems: h.Problems()}
	groups := [][]Holding{hs}
	if c.PerKind {
		groups = byKind(hs)
	}
	r.Linearizable = true
	var margins []Margin
	for _, g := range groups {
		ok, _ := c.Check(g, tl.Origin)
		r.Linearizable = r.Linearizable && ok
		r.Overlaps = append(r.Overlaps, c.Overlaps(g)...)
		margins = append(margins, c.Margins(g)...)
	}
	lost, resumed := h.Sessions()
	r.Signals, r.Margins = ExpiryMargins(margins, lost, resumed)
	calm := make([]bool, n)
	for _, x := range hs {
		if x.OK {
			r.Grants++
			if x.Return.After(calmStart) {
				calm[x.Who] = true
			}
		}
		if x.Open() {
			r.Open++
		}
	}
	for i, ok := range calm {
		if !ok {
			r.CalmStuck = append(r.CalmStuck, PartName(i))
		}
	}
	return r
}

// ExpiryMargins keeps the margins that measure the promise: those of
// holdings whose session ended without its connection coming back between
// the loss signal and the end (so the holder could not delete its node:
// the server let the next holder in when it expired the session, and the
// holder must have heard of its loss before), and every margin <= 0
// whatever its cause. The others are holdings whose holder heard a loss
// signal (a suspension), got its connection back and released: the next
// grant then follows the holder's own release, a few milliseconds later,
// which measures the worker's reaction, not a margin. signals counts all.
func ExpiryMargins(ms []Margin, lost map[int64]time.Time, resumed map[int64][]time.Time) (signals int, kept []Margin) {
	for _, m := range ms {
		id := m.Holding.Session
		end, ended := lost[id]
		expired := ended && id != 0 && !slices.ContainsFunc(resumed[id], func(at time.Time) bool {
			return !at.Before(m.Holding.Lost) && at.Before(end)
		})
		if m.D <= 0 || expired {
			kept = append(kept, m)
		}
	}
	return len(ms), kept
}

// BadMargins returns the margins that are not > 0.
func (r Result) BadMargins() []Margin {
	var bad []Margin
	for _, m := range r.Margins {
		if m.D <= 0 {
			bad = append(bad, m)
		}
	}
	return bad
}

// OK reports whether every check passed.
func (r Result) OK() bool {
	return r.Linearizable && len(r.Overlaps) == 0 && r.Store.StaleAccepted == 0 &&
		len(r.BadMargins()) == 0 && len(r.Orphans) == 0 && len(r.Unreaped) == 0 && len(r.CalmStuck) == 0 &&
		len(r.Unsettled) == 0 && len(r.Problems) == 0
}

// Summary is the scenario's one-line summary.
func (r Result) Summary(recipe string) string {
	kinds := make([]string, 0, len(r.Faults))
	total := 0
	for k, n := range r.Faults {
		kinds = append(kinds, fmt.Sprintf("%s:%d", k, n))
		total += n
	}
	slices.Sort(kinds)
	lin := "ok"
	if !r.Linearizable {
		lin = "ILLEGAL"
	}
	mn, med := MarginStats(r.Margins)
	return fmt.Sprintf("chaos %s seed=%d faults=%d{%s} grants=%d open=%d porcupine=%s overlaps=%d "+
		"fence{accepted=%d refused=%d stale-accepted=%d} margins{n=%d of %d min=%v median=%v bad=%d} orphans=%d unreaped=%d calm-stuck=%d%s problems=%d",
		recipe, r.Seed, total, strings.Join(kinds, " "), r.Grants, r.Open, lin, len(r.Overlaps),
		r.Store.Accepted, r.Store.Refused, r.Store.StaleAccepted,
		len(r.Margins), r.Signals, mn.Round(time.Millisecond), med.Round(time.Millisecond), len(r.BadMargins()),
		len(r.Orphans), len(r.Unreaped), len(r.CalmStuck), r.settled(), len(r.Problems))
}

// settled is the summary's part about the Settle check ("" when the
// workload has none).
func (r Result) settled() string {
	if !r.Settled && len(r.Unsettled) == 0 {
		return ""
	}
	return fmt.Sprintf(" unsettled=%d", len(r.Unsettled))
}

// Explain renders a readable timeline around each violation (at most max
// of each kind), for a failed scenario.
func (r Result) Explain(tl *Timeline, window time.Duration, max int) string {
	var b strings.Builder
	for i, o := range r.Overlaps {
		if i == max {
			fmt.Fprintf(&b, "... and %d more overlaps\n", len(r.Overlaps)-max)
			break
		}
		end := "never ended"
		if e := o.A.End(); !e.IsZero() {
			end = "ended at " + tl.rel(e)
		}
		mark := fmt.Sprintf("OVERLAP: %s granted (token %d) while %s (token %d, granted %s) still held (%s)",
			PartName(o.B.Who), o.B.Token, PartName(o.A.Who), o.A.Token, tl.rel(o.A.Return), end)
		fmt.Fprintf(&b, "%s\n%s", mark, tl.Around(o.At(), window, mark))
	}
	for i, m := range r.BadMargins() {
		if i == max {
			break
		}
		mark := fmt.Sprintf("MARGIN %v: %s's Lost() closed at %s, %s granted at %s",
			m.D.Round(time.Millisecond), PartName(m.Holding.Who), tl.rel(m.Holding.Lost), PartName(m.Next.Who), tl.rel(m.Next.Return))
		fmt.Fprintf(&b, "%s\n%s", mark, tl.Around(m.Next.Return, window, mark))
	}
	for i, o := range r.Orphans {
		if i == max {
			fmt.Fprintf(&b, "... and %d more orphans\n", len(r.Orphans)-max)
			break
		}
		if o.Err != nil || o.Created.IsZero() {
			fmt.Fprintf(&b, "ORPHAN: %v\n", o)
			continue
		}
		mark := fmt.Sprintf("ORPHAN created: %s, left behind by %s (session 0x%x) while its session lived",
			o.Path, tl.WhoHad(o.Session), o.Session)
		fmt.Fprintf(&b, "%s\n%s", mark, tl.Around(o.Created, window, mark))
	}
	if len(r.Unreaped) > 0 {
		fmt.Fprintf(&b, "recipe paths not reaped after Close: %v\n", r.Unreaped)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "PROBLEM: %s\n", p)
	}
	for i, u := range r.Unsettled {
		if i == max {
			fmt.Fprintf(&b, "... and %d more problems after the calm phase\n", len(r.Unsettled)-max)
			break
		}
		fmt.Fprintf(&b, "UNSETTLED after the calm phase: %v; what %s did and saw:\n%s", u, u.Who, tl.Of(u.Who, r.CalmStart.Add(-window)))
	}
	for _, who := range r.CalmStuck {
		fmt.Fprintf(&b, "NO GRANT in the calm phase (from %s) for %s; what it did and saw:\n%s",
			tl.rel(r.CalmStart), who, tl.Of(who, r.CalmStart.Add(-window)))
	}
	return b.String()
}

// Closest renders the timeline around the smallest margin kept, for a
// look at the closest call; "" when there is none.
func (r Result) Closest(tl *Timeline, window time.Duration) string {
	if len(r.Margins) == 0 {
		return ""
	}
	m := slices.MinFunc(r.Margins, func(a, b Margin) int { return cmp.Compare(a.D, b.D) })
	mark := fmt.Sprintf("CLOSEST margin %v: %s's loss signal at %s (session 0x%x), %s granted at %s",
		m.D.Round(time.Millisecond), PartName(m.Holding.Who), tl.rel(m.Holding.Lost), m.Holding.Session,
		PartName(m.Next.Who), tl.rel(m.Next.Return))
	return mark + "\n" + tl.Around(m.Next.Return, window, mark)
}
