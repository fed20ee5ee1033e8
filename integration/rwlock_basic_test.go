package integration

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// TestRWLockBasic is Curator's basic read/write lock test: several clients,
// each with its own session, take the read or the write lock at random. On
// every entry the test checks that no writer shares the lock with anyone,
// and it checks that readers did share it.
func TestRWLockBasic(t *testing.T) {
	noLeaks(t)
	const (
		clients = 8
		ops     = 100
	)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	handles := make([]*rwlock.RWMutex, clients)
	for i := range handles {
		handles[i], _ = rwHandle(t, clientOpts{ns: ns})
	}

	var (
		readers, writers      atomic.Int64 // inside the lock right now
		maxReaders            atomic.Int64
		reads, writes         atomic.Int64
		violations            atomic.Int64
		firstViolation        sync.Once
		firstViolationMessage atomic.Value
	)
	violate := func(msg string) {
		violations.Add(1)
		firstViolation.Do(func() { firstViolationMessage.Store(msg) })
	}
	read := func(ctx context.Context, rw *rwlock.RWMutex, hold time.Duration) error {
		if err := rw.RLock(ctx); err != nil {
			return err
		}
		n := readers.Add(1)
		if writers.Load() != 0 {
			violate("a reader entered while a writer was inside")
		}
		for {
			m := maxReaders.Load()
			if n <= m || maxReaders.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(hold)
		if writers.Load() != 0 {
			violate("a writer entered while a reader was inside")
		}
		readers.Add(-1)
		reads.Add(1)
		return rw.RUnlock(ctx)
	}
	write := func(ctx context.Context, rw *rwlock.RWMutex, hold time.Duration) error {
		if err := rw.Lock(ctx); err != nil {
			return err
		}
		if w := writers.Add(1); w != 1 {
			violate("two writers inside")
		}
		if readers.Load() != 0 {
			violate("a writer entered while a reader was inside")
		}
		time.Sleep(hold)
		if readers.Load() != 0 || writers.Load() != 1 {
			violate("someone entered while a writer was inside")
		}
		writers.Add(-1)
		writes.Add(1)
		return rw.Unlock(ctx)
	}

	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for i, rw := range handles {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(seed, uint64(i)))
			for range ops {
				var err error
				if rnd.IntN(4) == 0 {
					err = write(ctx, rw, time.Duration(rnd.IntN(2))*time.Millisecond)
				} else {
					err = read(ctx, rw, time.Duration(2+rnd.IntN(4))*time.Millisecond)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	t.Logf("reads %d, writes %d, max readers at once %d", reads.Load(), writes.Load(), maxReaders.Load())
	require.Zero(t, violations.Load(), "exclusion violated: %v", firstViolationMessage.Load())
	require.Equal(t, int64(clients*ops), reads.Load()+writes.Load())
	require.Positive(t, writes.Load(), "the random mix had no writes")
	require.Greater(t, maxReaders.Load(), int64(1), "readers never shared the lock")
}
