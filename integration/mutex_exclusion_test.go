package integration

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// TestMutexExclusion has 10 handles, each on its own client (its own
// session, as separate processes would be), take the lock 200 times each and
// do two non-atomic read-modify-writes under it: one of a plain Go int (read,
// yield, write back) and one of a znode (get, sleep, set with any version).
// Any overlap of two holders loses updates; an "inside" counter also catches
// it directly, and fencing tokens must grow with every holder.
func TestMutexExclusion(t *testing.T) {
	noLeaks(t)
	const handles, cycles = 10, 200
	ns := namespace(t)
	ctx := ctxT(t, 100*time.Second)
	admin := connect(t, clientOpts{ns: ns})
	_, err := admin.Create(ctx, "/counter", []byte("0"), 0, client.WithParents())
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.DeleteIfExists(context.Background(), "/counter") })

	var (
		counter   int // guarded by nothing but the distributed lock
		inside    atomic.Int32
		maxInside atomic.Int32
		lastToken atomic.Int64
		badTokens atomic.Int32
		wg        sync.WaitGroup
		errs      = make(chan error, handles)
	)
	type process struct {
		c *client.Client
		m *mutex.Mutex
	}
	procs := make([]process, handles)
	for i := range procs {
		c := connect(t, clientOpts{ns: ns})
		procs[i] = process{c: c, m: mxNew(t, c, mxLockPath)}
	}
	start := time.Now()
	for i, p := range procs {
		wg.Go(func() {
			for n := range cycles {
				if err := p.m.Lock(ctx); err != nil {
					errs <- fmt.Errorf("handle %d cycle %d: lock: %w", i, n, err)
					return
				}
				now := inside.Add(1)
				for {
					old := maxInside.Load()
					if now <= old || maxInside.CompareAndSwap(old, now) {
						break
					}
				}
				tok := mxTok(p.m)
				if tok <= lastToken.Load() {
					badTokens.Add(1)
				}
				lastToken.Store(tok)

				v := counter
				runtime.Gosched()
				counter = v + 1

				err := mxIncrement(ctx, p.c, "/counter")

				inside.Add(-1)
				if err != nil {
					_ = p.m.Unlock(ctx)
					errs <- fmt.Errorf("handle %d cycle %d: counter znode: %w", i, n, err)
					return
				}
				if err := p.m.Unlock(ctx); err != nil {
					errs <- fmt.Errorf("handle %d cycle %d: unlock: %w", i, n, err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, _, err := admin.Get(ctx, "/counter")
	require.NoError(t, err)
	t.Logf("%d handles x %d cycles in %v (%.0f cycles/s)", handles, cycles, elapsed,
		float64(handles*cycles)/elapsed.Seconds())
	require.Equal(t, int32(1), maxInside.Load(), "two holders were inside at once")
	require.Equal(t, handles*cycles, counter, "lost updates of the Go counter")
	require.Equal(t, strconv.Itoa(handles*cycles), string(data), "lost updates of the znode counter")
	require.Zero(t, badTokens.Load(), "fencing tokens did not grow with every holder")
}

// mxIncrement adds one to the decimal number in the znode at p the unsafe
// way: read, pause, write back whatever version is there.
func mxIncrement(ctx context.Context, c *client.Client, p string) error {
	data, _, err := c.Get(ctx, p)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		return err
	}
	time.Sleep(100 * time.Microsecond)
	_, err = c.Set(ctx, p, []byte(strconv.Itoa(n+1)), -1)
	return err
}
