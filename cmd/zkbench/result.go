package main

import (
	"fmt"
	"slices"
	"time"
)

// result is one run's measurement.
type result struct {
	cfg        runConfig
	ops        int
	elapsed    time.Duration
	handoffs   []time.Duration
	violations int64
	events     int64
	// fixed, when set, holds the handoff p50 and p99 measured elsewhere
	// (a java bench's), instead of handoffs.
	fixed *[2]time.Duration
	// noEvents marks a recipe whose watch events are not counted: the line
	// then has no events_per_release.
	noEvents bool
	// requests is -count's req_per_op field (with its leading space), or "".
	requests string
}

// line renders the result as the one line zkbench prints per run.
func (r result) line() string {
	secs := r.elapsed.Seconds()
	opsPerSec := 0.0
	if secs > 0 {
		opsPerSec = float64(r.ops) / secs
	}
	perRelease := 0.0
	if r.ops > 0 {
		perRelease = float64(r.events) / float64(r.ops)
	}
	sorted := slices.Clone(r.handoffs)
	slices.Sort(sorted)
	p50, p99 := percentile(sorted, 50), percentile(sorted, 99)
	if r.fixed != nil {
		p50, p99 = r.fixed[0], r.fixed[1]
	}
	rw := ""
	if isRW(r.cfg.recipe) {
		rw = fmt.Sprintf(" readers=%d writers=%d", r.cfg.readers, r.cfg.writers)
	}
	line := fmt.Sprintf("recipe=%s workers=%d%s iters=%d ops=%d secs=%.2f ops_per_s=%.1f handoff_p50_ms=%.2f handoff_p99_ms=%.2f violations=%d",
		r.cfg.recipe, r.cfg.workers, rw, r.cfg.iters, r.ops, secs, opsPerSec,
		millis(p50), millis(p99), r.violations)
	if !r.noEvents {
		line += fmt.Sprintf(" events_per_release=%.2f", perRelease)
	}
	return line + r.requests
}

// percentile returns the nearest-rank p-th percentile of sorted, 0 when empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(float64(len(sorted))*p/100+0.999999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
