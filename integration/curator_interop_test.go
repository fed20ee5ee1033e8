package integration

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// curatorClasspath is Curator's jars from Debian's libcurator-*-java
// packages (scripts/install-deps.sh).
func curatorClasspath(t *testing.T) string {
	t.Helper()
	return itest.Classpath(t, itest.CuratorJars...)
}

// curatorProc is one running Curator contender (testdata/curator).
type curatorProc struct{ *javaProc }

func startCurator(t *testing.T, ctx context.Context, lockPath, kind string, iters int, counter, inside string) *curatorProc {
	t.Helper()
	return &curatorProc{startJava(t, ctx, "CuratorContender",
		shared.ConnectString(), lockPath, kind, strconv.Itoa(iters), counter, inside)}
}

var curatorDone = regexp.MustCompile(`curator: done iters=(\d+) violations=(\d+)`)

// wait returns the Curator process's count of violations.
func (p *curatorProc) wait(t *testing.T) int {
	t.Helper()
	out := p.output(t)
	m := curatorDone.FindStringSubmatch(out)
	require.NotNil(t, m, "curator output:\n%s", out)
	v, _ := strconv.Atoi(m[2])
	return v
}

// goCriticalSection is the Go twin of the Java contender's critical section:
// ZooKeeper itself detects overlap through the ephemeral "inside" node.
func goCriticalSection(ctx context.Context, c *client.Client, counter, inside string) (violation bool, err error) {
	if _, err := c.Create(ctx, inside, nil, zk.FlagEphemeral); err == zk.ErrNodeExists {
		violation = true
	} else if err != nil {
		return false, err
	}
	data, _, err := c.Get(ctx, counter)
	if err != nil {
		return violation, err
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		return violation, err
	}
	time.Sleep(2 * time.Millisecond)
	if _, err := c.Set(ctx, counter, []byte(strconv.Itoa(n+1)), -1); err != nil {
		return violation, err
	}
	if err := c.Delete(ctx, inside, -1); err == zk.ErrNoNode {
		violation = true
	} else if err != nil {
		return violation, err
	}
	return violation, nil
}

// interopRun runs Go contenders (one client each) against Curator processes on
// one lock and checks the counter and that nobody ever overlapped.
func interopRun(t *testing.T, kind string, goLocker func(c *client.Client, lockPath string) (lock, unlock func(context.Context) error)) {
	ns := namespace(t)
	lockPath, counter, inside := ns+"/lock", ns+"/counter", ns+"/inside"
	root := connect(t, clientOpts{}) // no namespace: Curator sees absolute paths
	ctx := ctxT(t, 3*time.Minute)
	_, err := root.Create(ctx, counter, []byte("0"), zk.FlagPersistent, client.WithParents())
	require.NoError(t, err)

	const javaIters, goWorkers, goIters = 40, 3, 30
	java := []*curatorProc{
		startCurator(t, ctx, lockPath, kind, javaIters, counter, inside),
		startCurator(t, ctx, lockPath, kind, javaIters, counter, inside),
	}

	// Watch the queue while both sides run: Go ("go-") and Curator nodes
	// must be seen queued together, or nothing was tested.
	stopWatch := watchMixed(ctx, root, lockPath)

	var goViolations atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goWorkers)
	for w := 0; w < goWorkers; w++ {
		c := connect(t, clientOpts{})
		lock, unlock := goLocker(c, lockPath)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < goIters; i++ {
				if err := lock(ctx); err != nil {
					errs <- err
					return
				}
				v, err := goCriticalSection(ctx, c, counter, inside)
				if v {
					goViolations.Add(1)
				}
				if err2 := unlock(ctx); err == nil {
					err = err2
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	javaViolations := 0
	for _, p := range java {
		javaViolations += p.wait(t)
	}
	mixed := stopWatch()

	data, _, err := root.Get(ctx, counter)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(2*javaIters+goWorkers*goIters), string(data), "every increment survived: nobody overlapped")
	assert.Zero(t, goViolations.Load(), "a Go holder found someone inside")
	assert.Zero(t, javaViolations, "a Curator holder found someone inside")
	assert.True(t, mixed, "Go and Curator nodes were never queued together: the test proved nothing")
}

// TestCuratorInteropMutex: Go mutexes and Curator InterProcessMutexes on one
// path exclude each other.
func TestCuratorInteropMutex(t *testing.T) {
	n := 0
	interopRun(t, "mutex", func(c *client.Client, lockPath string) (func(context.Context) error, func(context.Context) error) {
		n++
		m, err := mutex.New(c, lockPath, mutex.WithData([]byte(fmt.Sprintf("go-%d", n))))
		require.NoError(t, err)
		return m.Lock, m.Unlock
	})
}

// TestCuratorInteropWriteLock: Go write locks and Curator's
// InterProcessReadWriteLock write locks on one path exclude each other.
func TestCuratorInteropWriteLock(t *testing.T) {
	n := 0
	interopRun(t, "write", func(c *client.Client, lockPath string) (func(context.Context) error, func(context.Context) error) {
		n++
		rw, err := rwlock.New(c, lockPath, rwlock.WithData([]byte(fmt.Sprintf("go-%d", n))))
		require.NoError(t, err)
		return rw.Lock, rw.Unlock
	})
}

// TestCuratorInteropReadersVsGoWriters: Curator readers never see a Go
// writer inside, and Go writers still count exactly.
func TestCuratorInteropReadersVsGoWriters(t *testing.T) {
	ns := namespace(t)
	lockPath, counter, inside := ns+"/lock", ns+"/counter", ns+"/inside"
	root := connect(t, clientOpts{})
	ctx := ctxT(t, 3*time.Minute)
	_, err := root.Create(ctx, counter, []byte("0"), zk.FlagPersistent, client.WithParents())
	require.NoError(t, err)
	reader := startCurator(t, ctx, lockPath, "read", 60, counter, inside)

	const goWorkers, goIters = 2, 30
	var wg sync.WaitGroup
	var goViolations atomic.Int64
	errs := make(chan error, goWorkers)
	for w := 0; w < goWorkers; w++ {
		c := connect(t, clientOpts{})
		rw, err := rwlock.New(c, lockPath)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < goIters; i++ {
				if err := rw.Lock(ctx); err != nil {
					errs <- err
					return
				}
				v, err := goCriticalSection(ctx, c, counter, inside)
				if v {
					goViolations.Add(1)
				}
				if err2 := rw.Unlock(ctx); err == nil {
					err = err2
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Zero(t, reader.wait(t), "a Curator reader saw a Go writer inside")
	assert.Zero(t, goViolations.Load())
	data, _, err := root.Get(ctx, counter)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(goWorkers*goIters), string(data))
}
