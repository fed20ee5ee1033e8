package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// CacheDir is where the cache workload's subtrees live: participant i's
// cache watches CacheDir/p<i>, which participant i+1 (mod the number of
// participants) writes, each through its own client and fault link.
const CacheDir = "/chaos/cache"

func init() {
	register(Workload{
		Recipe:   "cache",
		Capacity: Capacity{Units: MaxParts}, // a cache holds nothing: every "grant" fits
		Dirs:     []string{CacheDir},
		// The caches' persistent watches go out again in SetWatches2 on
		// every reconnect: cut that request too.
		Kinds: append(slices.Clone(AllKinds), CutSetWatches, CutSetWatches),
		Start: func(ctx context.Context, c *client.Client, p Part) (func(context.Context), error) {
			w, err := StartCacheWorker(ctx, c, p)
			if err != nil {
				return nil, err
			}
			return w.Run, nil
		},
	})
}

// CacheWorker is one participant of the cache scenario. Through the fault
// phase it writes its neighbour's subtree at random (a TreeWriter:
// creates, writes, deletes and re-creates on three levels, ephemeral
// leaves, its root deleted and made again) while its cache follows its own
// subtree, which the other neighbour writes. In the calm phase, once the
// cache's view and the view its events give both equal the server's tree
// (read with the participant's client), it records a grant, and again
// every half second while they stay equal: the scenario's calm check then
// asks each cache to have caught up. When the
// worker stops it checks once more, records a Problem for any difference
// or any event that did not fit the ones before it (see Replay), closes
// the cache and deletes its subtree.
type CacheWorker struct {
	Part
	Cache  *cache.Cache
	Writer *TreeWriter
	Root   string // the subtree its cache watches

	mu     sync.Mutex
	replay *Replay
	done   chan struct{}
	stop   func()
}

// StartCacheWorker makes participant p's cache of CacheDir/p<Who>,
// subscribes to its events and starts it (waiting, within ctx and at most
// 30 s, for its first load), and prepares the writer of CacheDir/p<Who+1>.
func StartCacheWorker(ctx context.Context, c *client.Client, p Part) (*CacheWorker, error) {
	root := fmt.Sprintf("%s/%s", CacheDir, p.Name())
	ch, err := cache.New(c, root)
	if err != nil {
		return nil, err
	}
	w := &CacheWorker{Part: p, Cache: ch, Root: root, replay: NewReplay(root), done: make(chan struct{})}
	w.Writer = &TreeWriter{C: c, Root: fmt.Sprintf("%s/%s", CacheDir, PartName((p.Who+1)%max(p.Parts, 1))),
		Rand: rand.New(rand.NewPCG(p.Seed, uint64(1000+p.Who))), Tag: p.Name() + "-",
		Width: 3, Depth: 3, Ephemeral: true, Churn: true}
	events, stop := ch.Events()
	w.stop = stop
	go func() {
		defer close(w.done)
		for ev := range events {
			w.mu.Lock()
			w.replay.Apply(ev)
			w.mu.Unlock()
		}
	}()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := ch.Start(sctx); err != nil {
		_ = ch.Close(sctx)
		stop()
		<-w.done
		return nil, err
	}
	return w, nil
}

// Run writes until the fault phase ends (LongUntil), then checks the cache
// against the server until ctx ends; then it checks the cache a last time,
// closes it and deletes its subtree.
func (w *CacheWorker) Run(ctx context.Context) {
	defer w.finish(ctx)
	pace := w.Rand()
	for ctx.Err() == nil && time.Now().Before(w.LongUntil) {
		wctx, cancel := context.WithDeadline(ctx, w.LongUntil)
		_ = w.Writer.Step(wctx)
		cancel()
		sleep(ctx, time.Duration(5+pace.IntN(30))*time.Millisecond)
	}
	w.Timeline.Add(w.Name(), fmt.Sprintf("writer stopped: %v", w.Writer.Counts()))
	// Every check that finds the cache equal to the server is a grant: the
	// writers stop at about the end of the fault phase, so the first may
	// come just before the calm phase, whose check wants one within it.
	for ctx.Err() == nil {
		if diff := w.compare(ctx); len(diff) == 0 {
			op := w.History.Invoke(w.Who)
			op.Granted(time.Now(), 0)
			op.Unlocking()
			w.Timeline.Add(w.Name(), "cache equals the server's tree")
			sleep(ctx, 500*time.Millisecond)
			continue
		}
		sleep(ctx, 100*time.Millisecond)
	}
}

// finish checks the cache against the server a last time (waiting up to
// 15 s for it to catch up), records what does not fit, closes the cache
// and deletes its subtree.
func (w *CacheWorker) finish(ctx context.Context) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var diff []string
	for deadline := time.Now().Add(15 * time.Second); ; {
		if diff = w.compare(fctx); len(diff) == 0 || time.Now().After(deadline) {
			break
		}
		sleep(fctx, 100*time.Millisecond)
	}
	if len(diff) > 0 {
		w.History.Problem(w.Who, "cache of "+w.Root+" differs from the server: "+strings.Join(diff, "; "))
	}
	_ = w.Cache.Close(fctx)
	w.stop()
	<-w.done
	w.mu.Lock()
	problems := w.replay.Problems()
	w.mu.Unlock()
	for _, p := range problems {
		w.History.Problem(w.Who, "event out of place: "+p)
	}
	if err := DeleteTree(fctx, w.Client, w.Root); err != nil {
		w.Timeline.Add(w.Name(), "could not delete "+w.Root+": "+err.Error())
	}
}

// compare reads the server's tree and returns how the cache's view and the
// view its events gave differ from it (nil: both equal it; a read that
// failed is a difference too).
func (w *CacheWorker) compare(ctx context.Context) []string {
	want, err := ReadTree(ctx, w.Client, w.Root)
	if err != nil {
		return []string{"reading the server: " + err.Error()}
	}
	var out []string
	for _, d := range Diff(want, NodesTree(w.Cache.Nodes()), 5) {
		out = append(out, "view: "+d)
	}
	w.mu.Lock()
	replayed := w.replay.Tree()
	w.mu.Unlock()
	for _, d := range Diff(want, replayed, 5) {
		out = append(out, "events: "+d)
	}
	return out
}

// Stats are what the worker did: the writer's steps by kind, and the
// events its cache delivered.
func (w *CacheWorker) Stats() (writes map[string]int, events int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.Writer.Counts(), w.replay.Events()
}
