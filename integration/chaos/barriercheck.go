package chaos

import (
	"fmt"
	"slices"
	"time"
)

// barrierProblem is one thing BarrierRun.check found wrong, and whose.
type barrierProblem struct {
	who  int
	what string
}

// BarrierStats sums up a barrier scenario's calls.
type BarrierStats struct {
	Enters, EntersFailed, Lost, Pending int // Enter calls: passed, failed; failures with ErrLost, ErrDeletePending
	Rounds                              int // Leave calls that returned nil
	LeftLost                            int // Leave calls that returned ErrLost
	Openings                            int // distinct rounds passed
	Waits, Sets                         int // gate Waits that returned nil, gate Sets that returned nil
}

// String is the stats as one line.
func (s BarrierStats) String() string {
	return fmt.Sprintf("enters=%d (failed %d: lost %d, delete pending %d) openings=%d rounds=%d left-lost=%d gate{sets=%d waits=%d}",
		s.Enters, s.EntersFailed, s.Lost, s.Pending, s.Openings, s.Rounds, s.LeftLost, s.Sets, s.Waits)
}

// Stats sums up the calls logged so far.
func (r *BarrierRun) Stats() BarrierStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s BarrierStats
	rounds := map[int64]bool{}
	for _, c := range r.calls {
		switch {
		case c.kind == "enter" && c.err == nil:
			s.Enters++
			rounds[c.round] = true
		case c.kind == "enter":
			s.EntersFailed++
			if c.lost {
				s.Lost++
			}
			if c.pending {
				s.Pending++
			}
		case c.kind == "leave" && c.err == nil:
			s.Rounds++
		case c.kind == "leave" && c.lost:
			s.LeftLost++
		case c.kind == "wait" && c.err == nil:
			s.Waits++
		case c.kind == "set" && c.err == nil:
			s.Sets++
		}
	}
	s.Openings = len(rounds)
	return s
}

// span is a stretch of time in which a participant may have had a node in
// the double barrier; a zero to is open-ended.
type span struct{ from, to time.Time }

// holds reports whether s covers instant t.
func (s span) holds(t time.Time) bool {
	return !s.from.After(t) && (s.to.IsZero() || s.to.After(t))
}

// together returns an instant of [from, to] at which every participant's
// spans in cover it, or the zero time when there is none. Such an instant,
// if any, is from or the start of a span: those are the candidates.
func together(in [][]span, from, to time.Time) time.Time {
	candidates := []time.Time{from}
	for _, spans := range in {
		for _, s := range spans {
			if s.from.After(from) && s.from.Before(to) {
				candidates = append(candidates, s.from)
			}
		}
	}
	for _, t := range candidates {
		all := true
		for _, spans := range in {
			if !slices.ContainsFunc(spans, func(s span) bool { return s.holds(t) }) {
				all = false
				break
			}
		}
		if all {
			return t
		}
	}
	return time.Time{}
}

// check runs the barrier scenario's checks over the call log, on the one
// process clock. With every participant a member and the barrier opening
// at all of them:
//
//   - Enter: a participant's Enter that passed must have had all the
//     participants in the barrier together at some instant between its
//     first try (the first of the failed Enters just before it) and its
//     return: the instant of the count that opened it. A participant is
//     taken to be in from an Enter's call until that Enter failed, or,
//     when it passed, until the next Leave or Close returned; a failed
//     Enter whose node may have outlived it (its delete went on in the
//     background, ErrDeletePending; or its session was lost, ErrLost, and
//     the server may expire it a little later) keeps it in until its next
//     Enter returned (which deletes such a node first, or comes after the
//     expiry).
//   - Never one opening twice: a participant's passed Enters have distinct
//     Rounds.
//   - Leave: a Leave that returned nil must not have returned before each
//     other participant that passed the same opening before it called
//     Leave had called Leave or Close itself, unless that one's Leave
//     found its node lost (ErrLost: its session expired while in).
//   - After the fault phase every participant completed a round (a Leave
//     that returned nil).
//   - The gate: a Wait that returned nil must not have spanned only
//     instants at which the gate was certainly set (a Set had returned
//     and no Remove had been called since).
func (r *BarrierRun) check() []barrierProblem {
	r.mu.Lock()
	calls := slices.Clone(r.calls)
	parts, calmAt := r.parts, r.calmAt
	r.mu.Unlock()
	slices.SortStableFunc(calls, func(a, b barrierCall) int { return a.invoke.Compare(b.invoke) })
	seqs := make([][]barrierCall, parts) // each participant's Enter, Leave and Close calls, in order
	var gate, waits []barrierCall
	for _, c := range calls {
		switch c.kind {
		case "enter", "leave", "close":
			if c.who < parts {
				seqs[c.who] = append(seqs[c.who], c)
			}
		case "set", "remove":
			gate = append(gate, c)
		case "wait":
			waits = append(waits, c)
		}
	}
	in := make([][]span, parts)
	for p, seq := range seqs {
		in[p] = memberships(seq)
	}
	var out []barrierProblem
	for p, seq := range seqs {
		out = append(out, checkEnters(p, seq, in)...)
		out = append(out, checkLeaves(p, seq, seqs)...)
		done := slices.ContainsFunc(seq, func(c barrierCall) bool {
			return c.kind == "leave" && c.err == nil && c.ret.After(calmAt)
		})
		if !calmAt.IsZero() && !done {
			out = append(out, barrierProblem{p, "completed no round after the fault phase"})
		}
	}
	return append(out, checkGate(gate, waits)...)
}

// memberships returns the spans in which a participant may have been in
// the barrier, from its calls seq.
func memberships(seq []barrierCall) []span {
	var out []span
	for i, c := range seq {
		if c.kind != "enter" {
			continue
		}
		s := span{from: c.invoke, to: c.ret}
		if c.err == nil || c.pending || c.lost {
			s.to = time.Time{}
			for _, n := range seq[i+1:] {
				if (c.err == nil && n.kind != "enter") || (c.err != nil && n.kind == "enter") {
					s.to = n.ret
					break
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// checkEnters checks participant p's passed Enters against everyone's
// memberships in, and that no two passed the same opening.
func checkEnters(p int, seq []barrierCall, in [][]span) []barrierProblem {
	var out []barrierProblem
	first := -1 // index in seq of the first Enter of the current run of tries
	seen := map[int64]bool{}
	for i, c := range seq {
		if c.kind != "enter" {
			first = -1
			continue
		}
		if first < 0 {
			first = i
		}
		if c.err != nil {
			continue
		}
		from := seq[first].invoke
		first = -1
		if seen[c.round] {
			out = append(out, barrierProblem{p, fmt.Sprintf("passed opening %d twice (at %s)", c.round, c.ret.Format("15:04:05.000"))})
		}
		seen[c.round] = true
		if together(in, from, c.ret).IsZero() {
			out = append(out, barrierProblem{p, fmt.Sprintf("passed Enter (round %d) at %s, but the participants were never all in the barrier together since its first try at %s",
				c.round, c.ret.Format("15:04:05.000"), from.Format("15:04:05.000"))})
		}
	}
	return out
}

// checkLeaves checks participant p's Leaves that returned nil: every other
// participant that passed the same opening before p called Leave had
// called Leave or Close by then, or lost its node.
func checkLeaves(p int, seq []barrierCall, seqs [][]barrierCall) []barrierProblem {
	var out []barrierProblem
	for _, c := range seq {
		if c.kind != "leave" || c.err != nil {
			continue
		}
		for y, ys := range seqs {
			if y == p {
				continue
			}
			for j, e := range ys {
				if e.kind != "enter" || e.err != nil || e.round != c.round || !e.ret.Before(c.invoke) {
					continue
				}
				var next *barrierCall
				if j+1 < len(ys) {
					next = &ys[j+1]
				}
				switch {
				case next != nil && next.kind == "leave" && next.lost:
				case next != nil && next.kind != "enter" && next.invoke.Before(c.ret):
				default:
					out = append(out, barrierProblem{p, fmt.Sprintf("returned from Leave (round %d) at %s before %s, in since %s, left",
						c.round, c.ret.Format("15:04:05.000"), PartName(y), e.ret.Format("15:04:05.000"))})
				}
			}
		}
	}
	return out
}

// checkGate checks the Waits that returned nil against the gate's Sets
// and Removes (one caller: p0, one call at a time).
func checkGate(gate, waits []barrierCall) []barrierProblem {
	var out []barrierProblem
	for _, w := range waits {
		if w.err != nil {
			continue
		}
		var set *barrierCall
		for i := range gate {
			g := &gate[i]
			if g.kind == "set" && g.err == nil && !g.ret.After(w.invoke) {
				set = g
			}
		}
		if set == nil {
			continue
		}
		removed := slices.ContainsFunc(gate, func(g barrierCall) bool {
			return g.kind == "remove" && !g.invoke.Before(set.invoke) && g.invoke.Before(w.ret)
		})
		if !removed {
			out = append(out, barrierProblem{w.who, fmt.Sprintf("Wait returned at %s while the gate was set (set at %s, not removed since)",
				w.ret.Format("15:04:05.000"), set.ret.Format("15:04:05.000"))})
		}
	}
	return out
}
