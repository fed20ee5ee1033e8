package chaos

import (
	"context"
	"path"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// The multilock workload's paths: three mutexes under one directory.
const MultiLockDir = "/chaos/multilock"

// MultiLockPaths are the mutexes the multilock workload's sets are drawn
// from.
var MultiLockPaths = []string{MultiLockDir + "/a", MultiLockDir + "/b", MultiLockDir + "/c"}

// MultiLockCapacity holds each path to one holder: the checks run per path
// (each holding's Kind is its path's name).
var MultiLockCapacity = Capacity{Units: 1, PerKind: true}

// MultiLockWorker is one participant of the multilock scenario. Each turn
// it draws a set of two or three of MultiLockPaths in a random order (so
// participants list the same paths differently, which deadlocks Curator's
// list-order multi-lock), takes it with a mutex.Multi, records one holding
// per path (kind: the path's name, token: that lock's), holds the set for
// a drawn time or until its Lost closes, and releases it. A deadlock shows
// as participants stuck in the calm phase; two holders of a path as an
// overlap of that path's holdings.
type MultiLockWorker struct {
	Part
	C *client.Client
}

// Run runs the worker until ctx ends; it returns once its last set is
// released.
func (w *MultiLockWorker) Run(ctx context.Context) {
	for ctx.Err() == nil {
		w.turn(ctx)
	}
}

// turn is one acquire, hold and release of a drawn set.
func (w *MultiLockWorker) turn(ctx context.Context) {
	r := w.Rand()
	paths := append([]string(nil), MultiLockPaths...)
	r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	paths = paths[:2+r.IntN(2)]
	m, err := mutex.NewMulti(w.C, paths)
	if err != nil {
		w.History.Problem(w.Who, "NewMulti: "+err.Error())
		w.Backoff(ctx)
		return
	}
	locks := m.Locks() // sorted by path
	ops := make([]*Op, len(locks))
	for i, l := range locks {
		ops[i] = w.History.InvokeAs(w.Who, path.Base(l.Path()), 1)
	}
	lctx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
	err = m.Lock(lctx)
	at := time.Now()
	cancel()
	if err != nil {
		for _, op := range ops {
			op.Failed(err)
		}
		w.Backoff(ctx)
		return
	}
	stops := make([]func(), len(locks))
	for i, l := range locks {
		_, stops[i] = w.Granted(ctx, ops[i], at, l)
	}
	w.hold(ctx, m, ops, locks, w.HoldTime())
	for i := range ops {
		ops[i].Unlocking()
		stops[i]()
	}
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer rcancel()
	if err := m.Unlock(rctx); err != nil {
		w.Timeline.Add(w.Name(), "release: "+err.Error())
	}
}

// hold holds the set for d, or until ctx ends or the set's Lost closes:
// each lost lock's holding ends at its own loss signal, the others' at the
// release, which follows at once.
func (w *MultiLockWorker) hold(ctx context.Context, m *mutex.Multi, ops []*Op, locks []mutex.Locker, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		select {
		case <-m.Lost():
			for i, l := range locks {
				select {
				case <-l.Lost():
					ops[i].LostAt(time.Now()) // keeps the watcher's instant if it came first
				default:
				}
			}
			return
		default:
		}
		if !sleep(ctx, 30*time.Millisecond) {
			return
		}
	}
}

func init() {
	register(Workload{
		Recipe:   "multilock",
		Capacity: MultiLockCapacity,
		Dirs:     []string{MultiLockDir},
		Start: func(_ context.Context, c *client.Client, p Part) (func(context.Context), error) {
			w := &MultiLockWorker{Part: p, C: c}
			return w.Run, nil
		},
	})
}
