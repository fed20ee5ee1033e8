package abandonit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// TestAbandonedWaits runs every recipe's blocking call in both shapes: 500
// waits on 500 distinct paths, and 50 waits on one path.
func TestAbandonedWaits(t *testing.T) {
	for _, r := range recipes() {
		t.Run(r.name, func(t *testing.T) {
			t.Run("500paths", func(t *testing.T) { runAbandon(t, shared, r, shape{paths: 500, perPath: 1}) })
			t.Run("50onOnePath", func(t *testing.T) { runAbandon(t, shared, r, shape{paths: 1, perPath: 50}) })
		})
	}
}

// recipes are the calls that wait on ZooKeeper.
func recipes() []recipe {
	return []recipe{
		mutexLock(),
		{
			name: "rwlock.Lock_behind_a_reader",
			setup: rwSetup(func(rw *rwlock.RWMutex, ctx context.Context) (func(context.Context) error, error) {
				return rw.RUnlock, rw.RLock(ctx)
			}, func(rw *rwlock.RWMutex, ctx context.Context) (bool, error) {
				if err := rw.Lock(ctx); err != nil {
					return false, err
				}
				return true, rw.Unlock(context.WithoutCancel(ctx))
			}),
			dirs: self,
		},
		{
			name: "rwlock.RLock_behind_a_writer",
			setup: rwSetup(func(rw *rwlock.RWMutex, ctx context.Context) (func(context.Context) error, error) {
				return rw.Unlock, rw.Lock(ctx)
			}, func(rw *rwlock.RWMutex, ctx context.Context) (bool, error) {
				if err := rw.RLock(ctx); err != nil {
					return false, err
				}
				return true, rw.RUnlock(context.WithoutCancel(ctx))
			}),
			dirs: self,
		},
		semaphoreAcquire(),
		semaphoreAcquireN(),
		semaphoreMutex(),
		barrierWait(),
		doubleEnter(),
		doubleLeave(),
		latchAwait(),
		electionRun(),
		electionObserve(),
		simpleTake(),
		queueConsume(),
		boundedPut(),
		multiLock(),
	}
}

// self is the dirs of a recipe whose nodes are the path's children.
func self(p string) []string { return []string{p} }

// times makes n waiters with mk.
func times(n int, mk func() (waiter, error)) ([]waiter, error) {
	ws := make([]waiter, 0, n)
	for range n {
		w, err := mk()
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// locker is what lockWaiter needs of a lock (a Multi is no mutex.Locker).
type locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// lockWaiter is the waiter of a lock: Lock, and if it ever succeeds, Unlock.
func lockWaiter(l locker) waiter {
	return waiter{wait: func(ctx context.Context) (bool, error) {
		if err := l.Lock(ctx); err != nil {
			return false, err
		}
		return true, l.Unlock(context.WithoutCancel(ctx))
	}}
}

func mutexLock() recipe {
	return recipe{
		name: "mutex.Lock",
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hm, err := mutex.New(h, p)
			if err != nil {
				return nil, nil, err
			}
			if err := hm.Lock(ctx); err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				m, err := mutex.New(w, p)
				return lockWaiter(m), err
			})
			return ws, hm.Unlock, err
		},
		dirs: self,
	}
}

// rwSetup is the setup of a read/write lock: the holder takes one side
// with hold, each waiter waits for the other with wait.
func rwSetup(hold func(*rwlock.RWMutex, context.Context) (func(context.Context) error, error),
	wait func(*rwlock.RWMutex, context.Context) (bool, error)) func(context.Context, *client.Client, *client.Client, string, int) ([]waiter, func(context.Context) error, error) {
	return func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
		hrw, err := rwlock.New(h, p)
		if err != nil {
			return nil, nil, err
		}
		release, err := hold(hrw, ctx)
		if err != nil {
			return nil, nil, err
		}
		ws, err := times(n, func() (waiter, error) {
			rw, err := rwlock.New(w, p)
			return waiter{wait: func(ctx context.Context) (bool, error) { return wait(rw, ctx) }}, err
		})
		return ws, release, err
	}
}

// semDirs are a semaphore's directories: its locks mutex and its leases.
func semDirs(p string) []string { return []string{p + "/locks", p + "/leases"} }

func semaphoreAcquire() recipe {
	return recipe{
		name: "semaphore.Acquire",
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hs, err := semaphore.New(h, p, 1)
			if err != nil {
				return nil, nil, err
			}
			lease, err := hs.Acquire(ctx)
			if err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				s, err := semaphore.New(w, p, 1)
				return waiter{wait: func(ctx context.Context) (bool, error) {
					l, err := s.Acquire(ctx)
					if l != nil {
						return true, l.Release(context.WithoutCancel(ctx))
					}
					return false, err
				}}, err
			})
			return ws, lease.Release, err
		},
		dirs: semDirs,
	}
}

func semaphoreAcquireN() recipe {
	return recipe{
		name: "semaphore.AcquireN",
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hs, err := semaphore.New(h, p, 2)
			if err != nil {
				return nil, nil, err
			}
			lease, err := hs.Acquire(ctx)
			if err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				s, err := semaphore.New(w, p, 2)
				return waiter{wait: func(ctx context.Context) (bool, error) {
					ls, err := s.AcquireN(ctx, 2)
					for _, l := range ls {
						_ = l.Release(context.WithoutCancel(ctx))
					}
					return len(ls) > 0, err
				}}, err
			})
			return ws, lease.Release, err
		},
		dirs: semDirs,
	}
}

func semaphoreMutex() recipe {
	return recipe{
		name: "semaphore.Mutex.Lock",
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hm, err := semaphore.NewMutex(h, p)
			if err != nil {
				return nil, nil, err
			}
			if err := hm.Lock(ctx); err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				m, err := semaphore.NewMutex(w, p)
				return lockWaiter(m), err
			})
			return ws, hm.Unlock, err
		},
		dirs: semDirs,
	}
}

func barrierWait() recipe {
	return recipe{
		name: "barrier.Wait",
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hb, err := barrier.New(h, p)
			if err != nil {
				return nil, nil, err
			}
			if err := hb.Set(ctx); err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				b, err := barrier.New(w, p)
				return waiter{wait: func(ctx context.Context) (bool, error) {
					err := b.Wait(ctx)
					return err == nil, err
				}}, err
			})
			return ws, hb.Remove, err
		},
		dirs: self,
	}
}

func doubleEnter() recipe {
	return recipe{
		name: "barrier.Double.Enter",
		// Nobody else enters: each waiter waits for the n+1 members the
		// barrier needs.
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			ws, err := times(n, func() (waiter, error) {
				d, err := barrier.NewDouble(w, p, n+1)
				return waiter{wait: func(ctx context.Context) (bool, error) {
					err := d.Enter(ctx)
					if err == nil {
						_ = d.Close(context.WithoutCancel(ctx))
					}
					return err == nil, err
				}}, err
			})
			return ws, nil, err
		},
		dirs: self,
	}
}

func doubleLeave() recipe {
	return recipe{
		name: "barrier.Double.Leave",
		// The holder's member and the n waiters' enter together; the
		// holder's never leaves, so each waiter's Leave waits for it.
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hd, err := barrier.NewDouble(h, p, n+1)
			if err != nil {
				return nil, nil, err
			}
			ds := []*barrier.Double{hd}
			for range n {
				d, err := barrier.NewDouble(w, p, n+1)
				if err != nil {
					return nil, nil, err
				}
				ds = append(ds, d)
			}
			errs := make([]error, len(ds))
			var wg sync.WaitGroup
			for i, d := range ds {
				wg.Go(func() { errs[i] = d.Enter(ctx) })
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return nil, nil, err
			}
			ws := make([]waiter, 0, n)
			for _, d := range ds[1:] {
				ws = append(ws, waiter{wait: func(ctx context.Context) (bool, error) {
					err := d.Leave(ctx)
					return err == nil, err
				}})
			}
			return ws, hd.Close, nil
		},
		dirs: self,
	}
}

// leadingLatch starts a latch of the holder's on p and waits until it leads.
func leadingLatch(ctx context.Context, h *client.Client, p string) (*election.Latch, error) {
	l, err := election.NewLatch(h, p, election.WithID("holder"))
	if err != nil {
		return nil, err
	}
	if err := l.Start(ctx); err != nil {
		return nil, err
	}
	if _, err := l.Await(ctx); err != nil {
		return nil, errors.Join(err, l.Close(ctx))
	}
	return l, nil
}

func latchAwait() recipe {
	return recipe{
		name: "election.Latch.Await",
		// A waiter's latch campaigns until it is closed: its watch is
		// the latch's, given up by its Close once Await has returned.
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hl, err := leadingLatch(ctx, h, p)
			if err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				l, err := election.NewLatch(w, p, election.WithID("waiter"))
				return waiter{
					wait: func(ctx context.Context) (bool, error) {
						if err := l.Start(ctx); err != nil {
							return false, fmt.Errorf("start: %w", err)
						}
						term, err := l.Await(ctx)
						return term != nil || l.Leading(), err
					},
					done: l.Close,
				}, err
			})
			return ws, hl.Close, err
		},
		dirs: self,
	}
}

func electionRun() recipe {
	return recipe{
		name: "election.Run",
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hctx, stop := context.WithCancel(context.WithoutCancel(ctx))
			leading := make(chan struct{})
			ran := make(chan error, 1)
			go func() {
				ran <- election.Run(hctx, h, p, func(ctx context.Context, _ *election.Term) error {
					close(leading)
					<-ctx.Done()
					return nil
				}, election.WithID("holder"), election.WithRunOnce())
			}()
			select {
			case <-leading:
			case err := <-ran:
				stop()
				return nil, nil, fmt.Errorf("the holder's Run returned before leading: %w", err)
			case <-ctx.Done():
				stop()
				return nil, nil, errors.Join(ctx.Err(), <-ran)
			}
			release := func(context.Context) error {
				stop()
				<-ran
				return nil
			}
			ws, err := times(n, func() (waiter, error) {
				return waiter{wait: func(ctx context.Context) (bool, error) {
					led := false
					err := election.Run(ctx, w, p, func(context.Context, *election.Term) error {
						led = true
						return nil
					}, election.WithID("waiter"), election.WithRunOnce())
					return led, err
				}}, nil
			})
			return ws, release, err
		},
		dirs: self,
	}
}

func electionObserve() recipe {
	return recipe{
		name: "election.Observe",
		// An observer follows the holder's leadership until its ctx ends,
		// then closes its channel.
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hl, err := leadingLatch(ctx, h, p)
			if err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				return waiter{wait: func(ctx context.Context) (bool, error) {
					obs, err := election.Observe(ctx, w, p)
					if err != nil {
						return false, err
					}
					for o := range obs {
						if o.Leader == nil || o.Leader.ID != "holder" {
							return false, fmt.Errorf("observed %+v, want the holder leading", o.Leader)
						}
					}
					return false, fmt.Errorf("observation channel closed: %w", ctx.Err())
				}}, nil
			})
			return ws, hl.Close, err
		},
		dirs: self,
	}
}

// emptyQueue makes the queue's node, persistent and empty.
func emptyQueue(ctx context.Context, h *client.Client, p string) error {
	_, err := h.Create(ctx, p, nil, 0)
	return err
}

// queueDirs are a queue's items and the waiting consumers' nodes.
func queueDirs(p string) []string {
	return []string{p, p + "-consumers/idle", p + "-consumers/members"}
}

func simpleTake() recipe {
	return recipe{
		name: "queue.Simple.Take",
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			if err := emptyQueue(ctx, h, p); err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				q, err := queue.NewSimple(w, p)
				return waiter{wait: func(ctx context.Context) (bool, error) {
					_, err := q.Take(ctx)
					return err == nil, err
				}}, err
			})
			return ws, nil, err
		},
		dirs: queueDirs,
	}
}

func queueConsume() recipe {
	return recipe{
		name: "queue.Queue.Consume",
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			if err := emptyQueue(ctx, h, p); err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				q, err := queue.New(w, p)
				return waiter{wait: func(ctx context.Context) (bool, error) {
					var mu sync.Mutex
					got := false
					err := q.Consume(ctx, func(context.Context, *queue.Item) error {
						mu.Lock()
						got = true
						mu.Unlock()
						return nil
					})
					mu.Lock()
					defer mu.Unlock()
					return got, err
				}}, err
			})
			return ws, nil, err
		},
		dirs: queueDirs,
	}
}

func boundedPut() recipe {
	return recipe{
		name: "queue.Queue.Put_bounded",
		// The holder fills a queue of one item; each waiter's Put waits
		// for room.
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hq, err := queue.New(h, p, queue.WithMaxItems(1))
			if err != nil {
				return nil, nil, err
			}
			if err := hq.Put(ctx, []byte("full")); err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				q, err := queue.New(w, p, queue.WithMaxItems(1))
				return waiter{wait: func(ctx context.Context) (bool, error) {
					err := q.Put(ctx, []byte("waiter"))
					return err == nil, err
				}}, err
			})
			return ws, nil, err
		},
		dirs: self,
	}
}

func multiLock() recipe {
	return recipe{
		name: "mutex.Multi.Lock",
		// Each waiter's Multi takes p/free and waits for p/held.
		setup: func(ctx context.Context, h, w *client.Client, p string, n int) ([]waiter, func(context.Context) error, error) {
			hm, err := mutex.New(h, p+"/held")
			if err != nil {
				return nil, nil, err
			}
			if err := hm.Lock(ctx); err != nil {
				return nil, nil, err
			}
			ws, err := times(n, func() (waiter, error) {
				m, err := mutex.NewMulti(w, []string{p + "/held", p + "/free"})
				return lockWaiter(m), err
			})
			return ws, hm.Unlock, err
		},
		dirs: func(p string) []string { return []string{p + "/free", p + "/held"} },
	}
}
