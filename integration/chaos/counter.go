package chaos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// CounterDir is where the counter workload's counter (CounterDir/value)
// and its promoted lock (CounterDir/lock) live.
const CounterDir = "/chaos/counter"

// CounterRun is one counter scenario: its participants' workers, each
// incrementing one recipes/counter Counter, and the tally of what their
// increments reported. Its Start and Settle are the scenario's.
type CounterRun struct {
	mu        sync.Mutex
	workers   []*CounterWorker
	successes []int32 // the version each successful increment made
	maybes    []int32 // the version each maybe would have made
	failures  int     // increments that failed, not applied
	settled   CounterTally
}

// NewCounterRun returns the state of one counter scenario.
func NewCounterRun() *CounterRun { return &CounterRun{} }

// CounterTally is what a counter scenario's increments did, as Settle found
// it: the node's value (and version), the increments that succeeded, those
// whose outcome was unknown (a *MaybeAppliedError) and how many of them the
// versions show were applied, and those that failed without applying.
type CounterTally struct {
	Value      int64
	Version    int32
	Successes  int
	Maybes     int
	Applied    int
	Failures   int
	Promotions int // increments that took the promoted lock
}

// String is the tally in one line.
func (t CounterTally) String() string {
	return fmt.Sprintf("value=%d version=%d successes=%d maybes=%d (applied %d) failures=%d promoted=%d",
		t.Value, t.Version, t.Successes, t.Maybes, t.Applied, t.Failures, t.Promotions)
}

// Tally returns what Settle found (zero before it ran).
func (r *CounterRun) Tally() CounterTally {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.settled
}

// CounterWorker is one participant of the counter scenario: it increments
// the counter at CounterDir/value every 5 to 50 ms (optimistic tries under
// ExponentialBackoff(5 ms, 3, 100 ms), then the promoted lock at
// CounterDir/lock, waited for up to a session timeout), each increment
// bounded by AcquireTimeout. Each increment that succeeds is a holding of
// kind "inc" that ends at once, so the calm phase waits until every
// participant has incremented again. Every outcome is tallied in its run.
type CounterWorker struct {
	Part
	C   *counter.Counter
	run *CounterRun

	mu     sync.Mutex // held through each increment, so that Pause waits for the one under way
	paused bool
}

// Start makes participant p's worker on c and returns its run function.
func (r *CounterRun) Start(_ context.Context, c *client.Client, p Part) (func(context.Context), error) {
	policy, err := retry.ExponentialBackoff(5*time.Millisecond, 3, 100*time.Millisecond)
	if err != nil {
		return nil, err
	}
	ct, err := counter.New(c, CounterDir+"/value", counter.WithRetryPolicy(policy),
		counter.WithPromotedLock(counter.PromotedLock{Path: CounterDir + "/lock", RetryPolicy: policy, Timeout: p.Session}))
	if err != nil {
		return nil, err
	}
	w := &CounterWorker{Part: p, C: ct, run: r}
	r.mu.Lock()
	r.workers = append(r.workers, w)
	r.mu.Unlock()
	return w.Run, nil
}

// Run increments until ctx ends or the worker is paused.
func (w *CounterWorker) Run(ctx context.Context) {
	for sleep(ctx, time.Duration(5+w.Rand().IntN(45))*time.Millisecond) {
		w.increment(ctx)
	}
}

// increment makes one increment, unless paused, and records it.
func (w *CounterWorker) increment(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paused {
		return
	}
	op := w.History.InvokeAs(w.Who, "inc", 1)
	ictx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
	res, err := w.C.Increment(ictx)
	cancel()
	var maybe *counter.MaybeAppliedError
	w.run.mu.Lock()
	if res.Stats.PromotedTries > 0 || res.Stats.PromotedTime > 0 {
		w.run.settled.Promotions++
	}
	switch {
	case err == nil:
		w.run.successes = append(w.run.successes, res.Version)
	case errors.As(err, &maybe):
		w.run.maybes = append(w.run.maybes, maybe.Version+1)
	default:
		w.run.failures++
	}
	w.run.mu.Unlock()
	if err != nil {
		op.Failed(err)
		return
	}
	op.Granted(time.Now(), int64(res.Version))
	op.Unlocking()
}

// Pause stops the increments; it returns once the one under way has
// returned.
func (w *CounterWorker) Pause() {
	w.mu.Lock()
	w.paused = true
	w.mu.Unlock()
}

// Settle pauses every worker and settles the count exactly: the node was
// made at 0 and only incremented, so its value is its version; each
// version was made by one write, so the successes' versions must be
// distinct, and every version no success made must be some maybe's. So
// the value is the successes plus the maybes that applied (at most all of
// them). It runs after the calm phase, when every request sent has had
// its answer. Then it deletes the counter's node, which the scenario
// wants gone.
func (r *CounterRun) Settle(ctx context.Context, checker *client.Client) []Unsettled {
	r.mu.Lock()
	workers := slices.Clone(r.workers)
	r.mu.Unlock()
	for _, w := range workers {
		w.Pause()
	}
	ct, err := counter.New(checker, CounterDir+"/value")
	if err != nil {
		return []Unsettled{{Problem: err.Error()}}
	}
	res, err := ct.Get(ctx)
	if err != nil {
		return []Unsettled{{Problem: "read the counter: " + err.Error()}}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &r.settled
	t.Value, t.Version, t.Successes, t.Maybes, t.Failures = res.PostValue, res.Version, len(r.successes), len(r.maybes), r.failures
	problems := settleCount(res.PostValue, res.Version, r.successes, r.maybes, &t.Applied)
	if err := checker.Delete(ctx, CounterDir+"/value", -1); err != nil {
		problems = append(problems, Unsettled{Problem: "delete the counter: " + err.Error()})
	}
	return problems
}

// settleCount checks a counter made at 0 and only incremented against the
// versions its increments reported, and sets applied to the maybes that
// the versions show were applied.
func settleCount(v int64, version int32, successes, maybes []int32, applied *int) []Unsettled {
	var out []Unsettled
	bad := func(format string, args ...any) { out = append(out, Unsettled{Problem: fmt.Sprintf(format, args...)}) }
	if int64(version) != v && !(version == -1 && v == 0) {
		bad("the counter holds %d at version %d: some write did not add 1", v, version)
	}
	seen := make(map[int32]bool, len(successes))
	for _, s := range successes {
		if seen[s] || s < 1 || s > version {
			bad("a success reports version %d (counter at version %d; seen before: %v)", s, version, seen[s])
		}
		seen[s] = true
	}
	maybe := make(map[int32]bool, len(maybes))
	for _, m := range maybes {
		maybe[m] = true
	}
	*applied = 0
	for k := int32(1); k <= version; k++ {
		switch {
		case seen[k]:
		case maybe[k]:
			*applied++
		default:
			bad("version %d was made by no increment that reported", k)
		}
	}
	if n := int64(len(successes) + *applied); n != v {
		bad("the counter holds %d, but %d increments succeeded and %d of %d maybes applied", v, len(successes), *applied, len(maybes))
	}
	return out
}

func init() {
	register(Workload{
		Recipe: "counter",
		Fresh: func() Workload {
			run := NewCounterRun()
			return Workload{
				Recipe:   "counter",
				Capacity: Capacity{Units: MaxParts}, // an increment holds nothing: no grant can overlap
				Dirs:     []string{CounterDir},
				Kinds:    append(slices.Clone(AllKinds), DropSetData, DropSetData),
				Start:    run.Start,
				Settle:   run.Settle,
			}
		},
	})
}
