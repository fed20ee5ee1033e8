package chaos

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
)

// barrierLog builds a call log on a clock of milliseconds from t0.
type barrierLog struct {
	t0 time.Time
	r  *BarrierRun
}

func newBarrierLog(parts int) *barrierLog {
	return &barrierLog{t0: time.Unix(1000, 0), r: &BarrierRun{parts: parts}}
}

func (l *barrierLog) at(ms int) time.Time { return l.t0.Add(time.Duration(ms) * time.Millisecond) }

// call logs a call of who over [from, to] ms.
func (l *barrierLog) call(who int, kind string, from, to int, err error, round int64) {
	l.r.calls = append(l.r.calls, barrierCall{who: who, kind: kind, invoke: l.at(from), ret: l.at(to), err: err, round: round,
		pending: err != nil && strings.Contains(err.Error(), "pending"), lost: err != nil && strings.Contains(err.Error(), "lost")})
}

// round logs a clean round of two participants: Enters over [0, 10] and
// [5, 10], Leaves over [20, 30] and [25, 30].
func (l *barrierLog) round(round int64, base int) {
	l.call(0, "enter", base, base+10, nil, round)
	l.call(1, "enter", base+5, base+10, nil, round)
	l.call(0, "leave", base+20, base+30, nil, round)
	l.call(1, "leave", base+25, base+30, nil, round)
}

func (l *barrierLog) problems() []string {
	var out []string
	for _, p := range l.r.check() {
		out = append(out, fmt.Sprintf("%s: %s", PartName(p.who), p.what))
	}
	return out
}

// TestBarrierCheck: the barrier workload's log check passes clean rounds
// (a retried Enter, a lost member excused) and finds each kind of
// violation: an Enter that passed while the participants were never all
// in together, one opening passed twice, a Leave that returned before
// another member of its opening called Leave, a gate Wait that returned
// while the gate was certainly set, and no round after the fault phase.
func TestBarrierCheck(t *testing.T) {
	errCtx := context.DeadlineExceeded
	lost := fmt.Errorf("%w: session lost", zkrecipes.ErrLost)
	cases := []struct {
		name string
		log  func(l *barrierLog)
		want []string // a substring of each problem, in order
	}{
		{"clean rounds", func(l *barrierLog) { l.round(7, 0); l.round(9, 100) }, nil},
		{"a retried Enter", func(l *barrierLog) {
			l.call(0, "enter", 0, 8, errCtx, 0)
			l.call(0, "enter", 9, 30, nil, 7)
			l.call(1, "enter", 20, 30, nil, 7)
			l.call(0, "leave", 40, 50, nil, 7)
			l.call(1, "leave", 45, 50, nil, 7)
		}, nil},
		{"passed alone", func(l *barrierLog) {
			l.call(0, "enter", 0, 10, nil, 7)
			l.call(1, "enter", 20, 30, nil, 7)
			l.call(0, "leave", 40, 50, nil, 7)
			l.call(1, "leave", 41, 50, nil, 7)
		}, []string{"p0: passed Enter (round 7)"}},
		{"in one after the other, never together", func(l *barrierLog) {
			l.call(0, "enter", 0, 10, errCtx, 0)
			l.call(1, "enter", 12, 20, nil, 7)
			l.call(0, "enter", 22, 30, nil, 7)
			l.call(0, "leave", 40, 50, nil, 7)
			l.call(1, "leave", 41, 50, nil, 7)
		}, []string{"p1: passed Enter (round 7)"}},
		{"one opening twice", func(l *barrierLog) { l.round(7, 0); l.round(7, 100) }, []string{"p0: passed opening 7 twice", "p1: passed opening 7 twice"}},
		{"left early", func(l *barrierLog) {
			l.call(0, "enter", 0, 10, nil, 7)
			l.call(1, "enter", 5, 10, nil, 7)
			l.call(0, "leave", 20, 30, nil, 7)
			l.call(1, "leave", 35, 40, nil, 7)
		}, []string{"p0: returned from Leave (round 7)"}},
		{"left while the other's node was lost", func(l *barrierLog) {
			l.call(0, "enter", 0, 10, nil, 7)
			l.call(1, "enter", 5, 10, nil, 7)
			l.call(0, "leave", 20, 30, nil, 7)
			l.call(1, "leave", 35, 40, lost, 7)
		}, nil},
		{"the gate", func(l *barrierLog) {
			l.round(7, 0)
			l.call(0, "set", 100, 110, nil, 0)
			l.call(1, "wait", 120, 130, nil, 0) // certainly set: a violation
			l.call(0, "remove", 135, 140, nil, 0)
			l.call(1, "wait", 120, 150, nil, 0) // spans the remove: fine
			l.call(1, "wait", 105, 106, nil, 0) // before the set returned: fine
		}, []string{"p1: Wait returned"}},
	}
	for _, tc := range cases {
		l := newBarrierLog(2)
		tc.log(l)
		got := l.problems()
		if len(got) != len(tc.want) {
			t.Errorf("%s: problems %q, want %d", tc.name, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %q, want one with %q", tc.name, got[i], w)
			}
		}
	}

	l := newBarrierLog(2)
	l.round(7, 0)
	l.r.calmAt = l.at(50)
	l.call(0, "enter", 100, 110, errCtx, 0)
	l.call(1, "enter", 100, 110, errCtx, 0)
	if got := l.problems(); len(got) != 2 || !strings.Contains(got[0], "completed no round after the fault phase") {
		t.Errorf("no round after the fault phase: problems %q", got)
	}
}
