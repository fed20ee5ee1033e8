package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// sample is the process's live heap and goroutines after a round.
type sample struct {
	heap       uint64 // bytes live after a GC
	goroutines int
}

// takeSample collects garbage and samples the heap and goroutines.
func takeSample() sample {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return sample{heap: m.HeapAlloc, goroutines: runtime.NumGoroutine()}
}

// totals are what the rounds so far found.
type totals struct {
	mu                       sync.Mutex
	rounds, failed           int
	grants, faults           int
	overlaps, stale, refused int
	orphans, unreaped, stuck int
	illegal                  int
	margins                  []chaos.Margin
	samples                  []sample
	current                  string
}

func (t *totals) add(r chaos.Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rounds++
	if !r.OK() {
		t.failed++
	}
	t.grants += r.Grants
	for _, n := range r.Faults {
		t.faults += n
	}
	if !r.Linearizable {
		t.illegal++
	}
	t.overlaps += len(r.Overlaps)
	t.stale += r.Store.StaleAccepted
	t.refused += r.Store.Refused
	t.orphans += len(r.Orphans)
	t.unreaped += len(r.Unreaped)
	t.stuck += len(r.CalmStuck)
	t.margins = append(t.margins, r.Margins...)
}

// line is the totals as one line.
func (t *totals) line() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	mn, med := chaos.MarginStats(t.margins)
	return fmt.Sprintf("rounds=%d failed=%d grants=%d faults=%d porcupine-illegal=%d overlaps=%d stale-accepted=%d refused=%d margins{n=%d min=%v median=%v} orphans=%d unreaped=%d calm-stuck=%d",
		t.rounds, t.failed, t.grants, t.faults, t.illegal, t.overlaps, t.stale, t.refused,
		len(t.margins), mn.Round(time.Millisecond), med.Round(time.Millisecond), t.orphans, t.unreaped, t.stuck)
}

// soak starts the cluster and runs rounds until the duration is up.
func soak(ctx context.Context, o options, stdout, stderr io.Writer) int {
	start := time.Now()
	hopts := []zktest.Option{zktest.WithServers(o.servers),
		zktest.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))}
	if o.backend != "" && o.backend != "auto" {
		hopts = append(hopts, zktest.WithBackend(zktest.Backend(o.backend)))
	}
	sctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	cluster, err := zktest.Start(sctx, hopts...)
	cancel()
	if err != nil {
		fmt.Fprintln(stderr, "zkchaos: cannot start ZooKeeper:", err)
		return 3
	}
	defer cluster.Close()
	fmt.Fprintf(stdout, "zkchaos: %s; recipes %s; %v; first seed %d\n", cluster, strings.Join(o.recipes, ","), o.duration, o.seed)

	var t totals
	t.samples = append(t.samples, takeSample())
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); progress(&t, o.progress, start, stdout, done) }()

	deadline := start.Add(o.duration)
	for i := 0; ctx.Err() == nil && (i == 0 || time.Now().Before(deadline)); i++ {
		recipe := o.recipes[i%len(o.recipes)]
		seed := o.seed + uint64(i)
		w, _ := chaos.WorkloadOf(recipe) // checked by parseFlags
		sc := w.Scenario()
		sc.Cluster, sc.Seed, sc.Parts, sc.Session, sc.Fault, sc.Calm = cluster, seed, o.parts, o.session, o.fault, o.calm
		sc.Namespace = fmt.Sprintf("/zkchaos/%d-%s", i, recipe)
		t.mu.Lock()
		t.current = fmt.Sprintf("round %d %s seed=%d", i+1, recipe, seed)
		t.mu.Unlock()
		r, tl, err := sc.Run(ctx)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(stdout, "zkchaos: round %d (%s, seed %d) could not run: %v\n", i+1, recipe, seed, err)
			t.mu.Lock()
			t.rounds++
			t.failed++
			t.mu.Unlock()
			continue
		}
		if ctx.Err() != nil {
			break // interrupted: this round's checks are not meaningful
		}
		t.add(r)
		s := takeSample()
		t.mu.Lock()
		t.samples = append(t.samples, s)
		t.mu.Unlock()
		fmt.Fprintf(stdout, "%s heap=%s goroutines=%d\n", r.Summary(recipe), mib(s.heap), s.goroutines)
		if mn, _ := chaos.MarginStats(r.Margins); r.OK() && len(r.Margins) > 0 && mn < 250*time.Millisecond {
			fmt.Fprintf(stdout, "zkchaos: round %d: the closest call:\n%s", i+1, r.Closest(tl, 3*time.Second))
		}
		if !r.OK() {
			fmt.Fprintf(stdout, "zkchaos: round %d FAILED (rerun: -recipe %s -seed %d -duration 1ns -servers %d -parts %d -session %v -fault %v -calm %v):\n%s",
				i+1, recipe, seed, o.servers, o.parts, o.session, o.fault, o.calm, r.Explain(tl, 2*time.Second, 3))
		}
	}
	close(done)
	wg.Wait()

	flat, report := flatness(t.samples)
	fmt.Fprintf(stdout, "zkchaos: done after %v: %s\n", time.Since(start).Round(time.Second), t.line())
	fmt.Fprintf(stdout, "zkchaos: %s\n", report)
	if ctx.Err() != nil {
		fmt.Fprintln(stdout, "zkchaos: interrupted")
		return 1
	}
	if t.failed > 0 || !flat {
		return 1
	}
	return 0
}

// progress prints a progress line every d until done is closed.
func progress(t *totals, d time.Duration, start time.Time, out io.Writer, done <-chan struct{}) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		t.mu.Lock()
		cur := t.current
		t.mu.Unlock()
		fmt.Fprintf(out, "zkchaos: %v %s; so far %s; heap=%s goroutines=%d\n",
			time.Since(start).Round(time.Second), cur, t.line(), mib(m.HeapAlloc), runtime.NumGoroutine())
	}
}

func mib(b uint64) string { return fmt.Sprintf("%.1fMiB", float64(b)/(1<<20)) }

// flatness checks that the heap and goroutines after the last rounds did
// not grow beyond what rounds 2 to 4 reached (round 1 warms caches up):
// the median of the last three samples may exceed that by at most half
// plus 4 MiB (heap), or 10 (goroutines). samples[0] is taken before the
// first round. With fewer than five rounds there is too little to judge.
func flatness(samples []sample) (bool, string) {
	var hs, gs []string
	for _, s := range samples {
		hs = append(hs, fmt.Sprintf("%.1f", float64(s.heap)/(1<<20)))
		gs = append(gs, fmt.Sprint(s.goroutines))
	}
	series := fmt.Sprintf("heap MiB by round: [%s]; goroutines by round: [%s]", strings.Join(hs, " "), strings.Join(gs, " "))
	if len(samples) < 6 {
		return true, series + "; flatness: too few rounds to judge"
	}
	var baseHeap uint64
	baseG := 0
	for _, s := range samples[2:5] {
		baseHeap, baseG = max(baseHeap, s.heap), max(baseG, s.goroutines)
	}
	last := samples[len(samples)-3:]
	heaps := []uint64{last[0].heap, last[1].heap, last[2].heap}
	gos := []int{last[0].goroutines, last[1].goroutines, last[2].goroutines}
	slices.Sort(heaps)
	slices.Sort(gos)
	okHeap := heaps[1] <= baseHeap+baseHeap/2+4<<20
	okG := gos[1] <= baseG+10
	verdict := "flat"
	if !okHeap || !okG {
		verdict = "GROWING"
	}
	return okHeap && okG, fmt.Sprintf("%s; flatness: %s (heap median of last 3 %s vs rounds 2-4 max %s; goroutines %d vs %d)",
		series, verdict, mib(heaps[1]), mib(baseHeap), gos[1], baseG)
}
