package integration

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// semJavaProc is one running CuratorSemaphore (testdata/curator).
type semJavaProc struct{ *javaProc }

// semStartJava starts CuratorSemaphore on the semaphore at semPathAbs,
// waiting until it is ready.
func semStartJava(t *testing.T, ctx context.Context, semPathAbs string, max, iters int, inside string, extra ...string) *semJavaProc {
	t.Helper()
	return &semJavaProc{startJava(t, ctx, "CuratorSemaphore", append([]string{
		shared.ConnectString(), semPathAbs, strconv.Itoa(max), strconv.Itoa(iters), inside}, extra...)...)}
}

var semJavaDone = regexp.MustCompile(`curator: done iters=(\d+) violations=(\d+) peak=(\d+)`)

// wait returns the Java process's violations and peak.
func (p *semJavaProc) wait(t *testing.T) (violations, peak int) {
	t.Helper()
	out := p.output(t)
	m := semJavaDone.FindStringSubmatch(out)
	require.NotNil(t, m, "curator output:\n%s", out)
	violations, _ = strconv.Atoi(m[2])
	peak, _ = strconv.Atoi(m[3])
	return violations, peak
}

// semInsideCheck is the Go twin of the Java contender's check, for n
// leases held: one EPHEMERAL_SEQUENTIAL node per lease under inside, then a
// listing of inside; it returns the number of nodes listed (at most the
// limit if nobody is over it).
func semInsideCheck(ctx context.Context, c *client.Client, inside string, n int) (count int, err error) {
	var mine []string
	for range n {
		p, err := c.Create(ctx, inside+"/go-", nil, zk.FlagEphemeralSequential, client.WithParents())
		if err != nil {
			return 0, err
		}
		mine = append(mine, p)
	}
	kids, _, err := c.Children(ctx, inside)
	if err != nil {
		return 0, err
	}
	time.Sleep(2 * time.Millisecond)
	for _, p := range mine {
		if err := c.Delete(ctx, p, -1); err != nil {
			return len(kids), err
		}
	}
	return len(kids), nil
}

// TestSemaphoreCuratorInterop: Go semaphores (Acquire and AcquireN(2)) and
// Curator 5.4 InterProcessSemaphoreV2 processes on one path. Every holder
// counts the holders on the server (one node per lease in an "inside"
// directory) while it holds: never above the limit, on either side; Go
// grants are also counted by lease sequence. Go and Java lease nodes must be
// seen in leases/ together, or the test proved nothing.
func TestSemaphoreCuratorInterop(t *testing.T) {
	semInteropRun(t, 3, false)
}

// TestSemaphoreCuratorInteropMutex: Go semaphore Mutexes and Curator 5.4
// InterProcessSemaphoreMutex processes on one path exclude each other.
func TestSemaphoreCuratorInteropMutex(t *testing.T) {
	semInteropRun(t, 1, true)
}

// semInteropRun runs Go workers and Curator processes on one semaphore of
// limit leases (asMutex: semaphore mutexes on both sides, limit 1).
func semInteropRun(t *testing.T, limit int, asMutex bool) {
	ns := namespace(t)
	semAbs, inside := ns+semPath, ns+"/inside"
	root := connect(t, clientOpts{}) // no namespace: Curator sees absolute paths
	ctx := ctxT(t, 3*time.Minute)
	const javaProcs, javaIters, goWorkers, goIters = 2, 40, 3, 30
	var extra []string
	if asMutex {
		extra = []string{"mutex"}
	}

	java := make([]*semJavaProc, javaProcs)
	for i := range java {
		java[i] = semStartJava(t, ctx, semAbs, limit, javaIters, inside, extra...)
	}

	stopWatch := watchMixed(ctx, root, semAbs+"/leases")

	var g semGauge // Go grants: server-side count by lease sequence
	var goPeak, goViolations atomic.Int64
	var wg sync.WaitGroup
	for w := range goWorkers {
		c := connect(t, clientOpts{})
		data := semaphore.WithData(fmt.Appendf(nil, "go-%d", w))
		s, err := semaphore.New(c, semAbs, limit, data)
		require.NoError(t, err)
		m, err := semaphore.NewMutex(c, semAbs, data)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range goIters {
				n := min(1+(i+w)%2, limit)
				var ls []*semaphore.Lease
				var nodes []string
				var err error
				if asMutex {
					err = m.Lock(ctx)
					nodes = []string{m.Node()}
				} else {
					ls, err = s.AcquireN(ctx, n)
					for _, l := range ls {
						nodes = append(nodes, l.Node())
					}
				}
				if !assert.NoError(t, err, "go worker %d iteration %d", w, i) {
					return
				}
				g.enter(n, semServerCountAbs(t, root, semAbs+"/leases", nodes))
				count, err := semInsideCheck(ctx, c, inside, n)
				assert.NoError(t, err)
				for old := goPeak.Load(); int64(count) > old && !goPeak.CompareAndSwap(old, int64(count)); old = goPeak.Load() {
				}
				if count > limit {
					goViolations.Add(1)
				}
				g.leave(n)
				if asMutex {
					assert.NoError(t, m.Unlock(ctx))
					continue
				}
				for _, l := range ls {
					assert.NoError(t, l.Release(ctx))
				}
			}
		}()
	}
	wg.Wait()
	javaViolations, javaPeak := 0, 0
	for _, p := range java {
		v, pk := p.wait(t)
		javaViolations += v
		javaPeak = max(javaPeak, pk)
	}
	mixed := stopWatch()

	_, serverPeak, grants := g.stats()
	t.Logf("go grants %d (server-side peak by sequence %d, inside peak %d); java peak inside %d", grants, serverPeak, goPeak.Load(), javaPeak)
	assert.Equal(t, goWorkers*goIters, grants)
	assert.LessOrEqual(t, serverPeak, limit)
	assert.Zero(t, goViolations.Load(), "a Go holder saw more than %d holders", limit)
	assert.Zero(t, javaViolations, "a Curator holder saw more than %d holders", limit)
	assert.True(t, mixed, "Go and Curator lease nodes were never seen together: the test proved nothing")
	kids, err := tryChildren(root, semAbs+"/leases")
	require.NoError(t, err)
	require.Empty(t, kids, "lease nodes left behind")
}

// semServerCountAbs is semServerCount for a client without the test's
// namespace (the leases directory is given absolute) and lease node paths.
func semServerCountAbs(t testing.TB, c *client.Client, leases string, granted []string) int {
	t.Helper()
	var top int64
	for _, node := range granted {
		top = max(top, semSeq(t, node[strings.LastIndexByte(node, '/')+1:]))
	}
	kids, err := tryChildren(c, leases)
	assert.NoError(t, err, "listing the leases")
	n := 0
	for _, k := range kids {
		if semSeq(t, k) <= top {
			n++
		}
	}
	return n
}
