package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// waitChildren waits until dir has n children.
func waitChildren(t *testing.T, c *client.Client, dir string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		kids, _, err := c.Children(ctxT(t, 5*time.Second), dir)
		return err == nil && len(kids) == n
	}, 30*time.Second, 20*time.Millisecond, "%s never had %d children", dir, n)
}

// showJSON runs zkr show --json and decodes it.
func showJSON(t *testing.T, ns, p string) View {
	t.Helper()
	r := zkr(t, ns, "show", "--json", p)
	require.Equal(t, 0, r.code, "stderr %q", r.stderr)
	var v View
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	return v
}

// lineIndex is the index of the first line of out containing s, or -1.
func lineIndex(out, s string) int {
	for i, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// lockInBackground starts a Lock on its own handle and returns a cancel
// that ends the wait (and unlocks if it got the lock).
func lockInBackground(t *testing.T, c *client.Client, p, data string) {
	t.Helper()
	m, err := mutex.New(c, p, mutex.WithData([]byte(data)))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Lock(ctx) }()
	t.Cleanup(func() {
		cancel()
		if <-done == nil {
			_ = m.Unlock(context.Background())
		}
	})
}

func TestShowMutexHolderAndWaitersInOrder(t *testing.T) {
	ns := namespace(t)
	ca, cb, cc := connect(t, ns), connect(t, ns), connect(t, ns)
	ctx := ctxT(t, time.Minute)
	holder, err := mutex.New(ca, "/jobs/nightly", mutex.WithData([]byte("host-a")))
	require.NoError(t, err)
	require.NoError(t, holder.Lock(ctx))
	t.Cleanup(func() { _ = holder.Unlock(context.Background()) })
	token, err := holder.Token(ctx)
	require.NoError(t, err)
	lockInBackground(t, cb, "/jobs/nightly", "host-b")
	waitChildren(t, ca, "/jobs/nightly", 2)
	lockInBackground(t, cc, "/jobs/nightly", "host-c")
	waitChildren(t, ca, "/jobs/nightly", 3)

	r := zkr(t, ns, "show", "/jobs/nightly")
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("zkr show:\n%s", r.stdout)
	require.Contains(t, r.stdout, "/jobs/nightly  mutex  3 nodes")
	a, b, c := lineIndex(r.stdout, "host-a"), lineIndex(r.stdout, "host-b"), lineIndex(r.stdout, "host-c")
	require.True(t, a > 0 && a < b && b < c, "order a=%d b=%d c=%d", a, b, c)
	lines := strings.Split(r.stdout, "\n")
	require.Contains(t, lines[a], "holder")
	require.Contains(t, lines[a], strconv.FormatInt(token, 10))
	require.Contains(t, lines[b], "waiter")

	v := showJSON(t, ns, "/jobs/nightly")
	require.Equal(t, kindMutex, v.Kind)
	require.Len(t, v.Nodes, 3)
	require.Equal(t, []string{"holder", "waiter", "waiter"}, []string{v.Nodes[0].Role, v.Nodes[1].Role, v.Nodes[2].Role})
	require.Equal(t, []string{"host-a", "host-b", "host-c"}, []string{v.Nodes[0].Data, v.Nodes[1].Data, v.Nodes[2].Data})
	require.Equal(t, token, v.Nodes[0].Token)
	require.Equal(t, "/jobs/nightly/"+v.Nodes[0].Name, holder.Node())
	require.Empty(t, v.Nodes[0].Watches)
	require.Equal(t, v.Nodes[0].Name, v.Nodes[1].Watches)
	require.Equal(t, v.Nodes[1].Name, v.Nodes[2].Watches)
	require.Less(t, v.Nodes[0].Token, v.Nodes[1].Token)
	require.Equal(t, "0x"+strconv.FormatInt(ca.Session().ID(), 16), v.Nodes[0].Session)
	require.GreaterOrEqual(t, v.Nodes[0].AgeSeconds, 0.0)

	// ls finds it, with its holder and two waiters.
	r = zkr(t, ns, "ls")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `mutex\s+/jobs/nightly\s+host-a\s+2\s+-`, r.stdout)
	r = zkr(t, ns, "ls", "/jobs", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var entries []Entry
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &entries))
	require.Len(t, entries, 1)
	require.Equal(t, Entry{Kind: kindMutex, Path: "/jobs/nightly", Holders: []string{"host-a"}, Waiters: 2}, entries[0])
}

func TestShowSemaphoreAtItsLimit(t *testing.T) {
	ns := namespace(t)
	ctx := ctxT(t, time.Minute)
	var leases []*semaphore.Lease
	for _, host := range []string{"host-a", "host-b"} {
		s, err := semaphore.New(connect(t, ns), "/licences", 2, semaphore.WithLimitCheck(), semaphore.WithData([]byte(host)))
		require.NoError(t, err)
		l, err := s.Acquire(ctx)
		require.NoError(t, err)
		leases = append(leases, l)
	}
	t.Cleanup(func() {
		for _, l := range leases {
			_ = l.Release(context.Background())
		}
	})
	// A third acquirer waits: it holds locks/ and its lease node waits for room.
	cw := connect(t, ns)
	sw, err := semaphore.New(cw, "/licences", 2, semaphore.WithLimitCheck(), semaphore.WithData([]byte("host-c")))
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		l, err := sw.Acquire(wctx)
		if err == nil {
			_ = l.Release(context.Background())
		}
		done <- err
	}()
	t.Cleanup(func() { cancel(); <-done })
	// Wait for the stable state: its lease node made after it took locks/
	// (not a fast-path node of a moment before, deleted again).
	require.Eventually(t, func() bool {
		ctx := ctxT(t, 5*time.Second)
		lockKids, _, err := cw.Children(ctx, "/licences/locks")
		if err != nil || len(lockKids) != 1 {
			return false
		}
		_, lst, err := cw.Get(ctx, "/licences/locks/"+lockKids[0])
		if err != nil {
			return false
		}
		leaseKids, _, err := cw.Children(ctx, "/licences/leases")
		if err != nil || len(leaseKids) != 3 {
			return false
		}
		for _, k := range leaseKids {
			_, st, err := cw.Get(ctx, "/licences/leases/"+k)
			if err == nil && st.Czxid > lst.Czxid {
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "the third acquirer never waited in place")

	v := showJSON(t, ns, "/licences")
	require.Equal(t, kindSemaphore, v.Kind)
	require.NotNil(t, v.Limit)
	require.Equal(t, 2, *v.Limit)
	require.Len(t, v.Nodes, 3)
	require.Equal(t, []string{"lease", "lease", "waiter"}, []string{v.Nodes[0].Role, v.Nodes[1].Role, v.Nodes[2].Role})
	require.Equal(t, []string{"host-a", "host-b", "host-c"}, []string{v.Nodes[0].Data, v.Nodes[1].Data, v.Nodes[2].Data})
	require.Len(t, v.Acquirers, 1)
	require.Equal(t, "holder", v.Acquirers[0].Role)
	require.Equal(t, "0x"+strconv.FormatInt(cw.Session().ID(), 16), v.Acquirers[0].Session)
	require.Equal(t, v.Nodes[2].Session, v.Acquirers[0].Session)

	r := zkr(t, ns, "show", "/licences")
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("zkr show:\n%s", r.stdout)
	require.Contains(t, r.stdout, "/licences  semaphore  leases 2/2  waiting 1  acquirers 1")
	r = zkr(t, ns, "ls")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `semaphore\s+/licences\s+host-a,host-b\s+1\s+2/2`, r.stdout)
	r = zkr(t, ns, "doctor")
	require.Equal(t, 0, r.code, "at the limit with one acquirer waiting is no problem: %s", r.stdout)
}

func TestShowRWLockWithDowngrade(t *testing.T) {
	ns := namespace(t)
	ctx := ctxT(t, time.Minute)
	c := connect(t, ns)
	rw, err := rwlock.New(c, "/inventory", rwlock.WithData([]byte("host-a")))
	require.NoError(t, err)
	require.NoError(t, rw.Lock(ctx))
	require.NoError(t, rw.Downgrade(ctx))
	t.Cleanup(func() { _ = rw.RUnlock(context.Background()) })
	// A writer queues behind the downgraded reader, and a reader behind it.
	w, err := rwlock.New(connect(t, ns), "/inventory", rwlock.WithData([]byte("host-w")))
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(context.Background())
	wdone := make(chan error, 1)
	go func() { wdone <- w.Lock(wctx) }()
	t.Cleanup(func() {
		cancel()
		if <-wdone == nil {
			_ = w.Unlock(context.Background())
		}
	})
	waitChildren(t, c, "/inventory", 2)
	rd, err := rwlock.New(connect(t, ns), "/inventory", rwlock.WithData([]byte("host-r")))
	require.NoError(t, err)
	rctx, rcancel := context.WithCancel(context.Background())
	rdone := make(chan error, 1)
	go func() { rdone <- rd.RLock(rctx) }()
	t.Cleanup(func() {
		rcancel()
		if <-rdone == nil {
			_ = rd.RUnlock(context.Background())
		}
	})
	waitChildren(t, c, "/inventory", 3)

	v := showJSON(t, ns, "/inventory")
	require.Equal(t, kindRWLock, v.Kind)
	require.Len(t, v.Nodes, 3)
	got := make([]string, 3)
	for i, n := range v.Nodes {
		got[i] = n.Role + "/" + n.Mode + "/" + n.Data
	}
	require.Equal(t, []string{"reader/read/host-a", "waiter/write/host-w", "waiter/read/host-r"}, got)
	require.Equal(t, v.Nodes[0].Name, v.Nodes[1].Watches, "the writer watches the node just before it")
	require.Equal(t, v.Nodes[1].Name, v.Nodes[2].Watches, "the reader watches the last writer before it")
	require.Contains(t, v.Nodes[0].Name, "__READ__")

	r := zkr(t, ns, "show", "/inventory")
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("zkr show:\n%s", r.stdout)
	require.Contains(t, r.stdout, "reader(read)")
	require.Contains(t, r.stdout, "waiter(write)")
}

func TestShowLatchLeader(t *testing.T) {
	ns := namespace(t)
	ctx := ctxT(t, time.Minute)
	alpha, err := election.NewLatch(connect(t, ns), "/elect", election.WithID("alpha"))
	require.NoError(t, err)
	require.NoError(t, alpha.Start(ctx))
	t.Cleanup(func() { _ = alpha.Close(context.Background()) })
	_, err = alpha.Await(ctx)
	require.NoError(t, err)
	beta, err := election.NewLatch(connect(t, ns), "/elect", election.WithID("beta"))
	require.NoError(t, err)
	require.NoError(t, beta.Start(ctx))
	t.Cleanup(func() { _ = beta.Close(context.Background()) })

	v := showJSON(t, ns, "/elect")
	require.Equal(t, kindLatch, v.Kind)
	require.Len(t, v.Nodes, 2)
	require.Equal(t, "leader", v.Nodes[0].Role)
	require.Equal(t, "alpha", v.Nodes[0].Data)
	require.Equal(t, "participant", v.Nodes[1].Role)
	require.Equal(t, "beta", v.Nodes[1].Data)
	require.Equal(t, v.Nodes[0].Name, v.Nodes[1].Watches)
	require.Equal(t, alpha.Term().Token(), v.Nodes[0].Token)

	r := zkr(t, ns, "ls", "/")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `latch\s+/elect\s+alpha\s+1\s+-`, r.stdout)
}

func TestLockPassesStatusAndToken(t *testing.T) {
	ns := namespace(t)
	dir := t.TempDir()
	r := zkrIn(t, dir, ns, "lock", "/jobs/one", "--", "sh", "-c", `echo "$ZKR_FENCING_TOKEN" > token; exit 7`)
	require.Equal(t, 7, r.code, r.stderr)
	require.Empty(t, r.stderr)
	b, err := os.ReadFile(filepath.Join(dir, "token"))
	require.NoError(t, err)
	token, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	require.NoError(t, err)
	require.Positive(t, token)

	r = zkrIn(t, dir, ns, "lock", "/jobs/one", "--", "true")
	require.Equal(t, 0, r.code, r.stderr)
	r = zkrIn(t, dir, ns, "lock", "/jobs/one", "--", "/no/such/command")
	requireOneLineError(t, r, 127)
	// The lock node is gone once zkr returns.
	c := connect(t, ns)
	kids, _, err := c.Children(ctxT(t, 10*time.Second), "/jobs/one")
	if err == nil {
		require.Empty(t, kids)
	}
}

func TestLockSecondChildStartsAfterTheFirstEnds(t *testing.T) {
	ns := namespace(t)
	dir := t.TempDir()
	first := make(chan result, 1)
	go func() {
		first <- zkrIn(t, dir, ns, "lock", "/jobs/serial", "--", "sh", "-c", "touch started1; sleep 2; touch ended1")
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, "started1"))
		return err == nil
	}, 60*time.Second, 10*time.Millisecond)
	// The first child holds the lock now: the second must wait for its end.
	second := zkrIn(t, dir, ns, "lock", "/jobs/serial", "--", "sh", "-c", "test -e ended1")
	r1 := <-first
	require.Equal(t, 0, r1.code, r1.stderr)
	require.Equal(t, 0, second.code, "the second child started before the first one ended: %s", second.stderr)
}

func TestLockTerminatesTheChildWhenTheNodeIsDeleted(t *testing.T) {
	ns := namespace(t)
	dir := t.TempDir()
	done := make(chan result, 1)
	go func() {
		done <- zkrIn(t, dir, ns, "lock", "--grace", "500ms", "/jobs/lost", "--", "sh", "-c", "trap '' TERM; sleep 60 >/dev/null 2>&1 & echo $! > bgpid; touch started; wait")
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	}, 60*time.Second, 10*time.Millisecond)
	c := connect(t, ns)
	ctx := ctxT(t, 30*time.Second)
	kids, _, err := c.Children(ctx, "/jobs/lost")
	require.NoError(t, err)
	require.Len(t, kids, 1)
	require.NoError(t, c.Delete(ctx, "/jobs/lost/"+kids[0], -1)) // an operator deletes the holder's node
	r := <-done
	require.Equal(t, 128+9, r.code, "SIGTERM ignored, so SIGKILL after the grace: %s", r.stderr)
	require.Contains(t, r.stderr, "was lost")
	// The whole process group went, the command's background job too.
	b, err := os.ReadFile(filepath.Join(dir, "bgpid"))
	require.NoError(t, err)
	pid := strings.TrimSpace(string(b))
	if n, err := strconv.Atoi(pid); err == nil {
		t.Cleanup(func() { _ = syscall.Kill(n, syscall.SIGKILL) }) // should it have survived
	}
	require.Eventually(t, func() bool {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return true // gone
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		return len(f) > 0 && f[0] == "Z" // killed, not yet reaped by init
	}, 20*time.Second, 20*time.Millisecond, "a process of the command (pid %s) outlived the loss", pid)
}

func TestElectRunsWhileLeading(t *testing.T) {
	ns := namespace(t)
	dir := t.TempDir()
	r := zkrIn(t, dir, ns, "elect", "--id", "cron-1", "/elect/job", "--", "sh", "-c", `echo "$ZKR_FENCING_TOKEN" > token; exit 3`)
	require.Equal(t, 3, r.code, r.stderr)
	b, err := os.ReadFile(filepath.Join(dir, "token"))
	require.NoError(t, err)
	token, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	require.NoError(t, err)
	require.Positive(t, token)
}

func TestShowSelectorLeaderWhileElectRuns(t *testing.T) {
	ns := namespace(t)
	dir := t.TempDir()
	done := make(chan result, 1)
	go func() {
		done <- zkrIn(t, dir, ns, "elect", "--id", "cron-1", "/elect/sel", "--",
			"sh", "-c", `echo "$ZKR_FENCING_TOKEN" > token; while [ ! -e stop ]; do sleep 0.05; done`)
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, "token"))
		return err == nil
	}, 60*time.Second, 10*time.Millisecond)
	// A second participant queues behind the leader.
	second := make(chan result, 1)
	go func() {
		second <- zkrIn(t, dir, ns, "elect", "--id", "cron-2", "/elect/sel", "--", "true")
	}()
	c := connect(t, ns)
	waitChildren(t, c, "/elect/sel", 2)

	v := showJSON(t, ns, "/elect/sel")
	require.Equal(t, kindMutex, v.Kind, "a LeaderSelector is a mutex on the wire")
	require.Len(t, v.Nodes, 2)
	require.Equal(t, []string{"holder/cron-1", "waiter/cron-2"}, []string{v.Nodes[0].Role + "/" + v.Nodes[0].Data, v.Nodes[1].Role + "/" + v.Nodes[1].Data})
	b, err := os.ReadFile(filepath.Join(dir, "token"))
	require.NoError(t, err)
	require.Equal(t, strconv.FormatInt(v.Nodes[0].Token, 10), strings.TrimSpace(string(b)))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "stop"), nil, 0o644))
	r := <-done
	require.Equal(t, 0, r.code, r.stderr)
	r = <-second
	require.Equal(t, 0, r.code, r.stderr)
}

func TestCountGetSet(t *testing.T) {
	ns := namespace(t)
	r := zkr(t, ns, "count", "set", "/limits/reports", "7")
	require.Equal(t, 0, r.code, r.stderr)
	r = zkr(t, ns, "count", "get", "/limits/reports")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "7\n", r.stdout)
	r = zkr(t, ns, "count", "set", "/limits/reports", "--", "-3")
	require.Equal(t, 0, r.code, r.stderr)
	var cj countJSON
	r = zkr(t, ns, "count", "get", "--json", "/limits/reports")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &cj))
	require.Equal(t, countJSON{Path: "/limits/reports", Value: -3, Version: 1}, cj)
	v := showJSON(t, ns, "/limits/reports")
	require.Equal(t, kindCount, v.Kind)
	require.Equal(t, &CountView{Value: -3, Version: 1}, v.Count)
	requireOneLineError(t, zkr(t, ns, "count", "get", "/limits/none"), 1)
	requireOneLineError(t, zkr(t, ns, "count", "set", "/limits/reports", "x"), 2)
}

func TestRevoke(t *testing.T) {
	ns := namespace(t)
	c := connect(t, ns)
	ctx := ctxT(t, time.Minute)
	revoked := make(chan struct{}, 1)
	m, err := mutex.New(c, "/jobs/rev", mutex.WithRevocationListener(func() {
		select {
		case revoked <- struct{}{}:
		default:
		}
	}))
	require.NoError(t, err)
	// No holder yet: refused.
	_, err = c.Create(ctx, "/jobs/rev", nil, 0, client.WithParents())
	require.NoError(t, err)
	requireOneLineError(t, zkr(t, ns, "revoke", "/jobs/rev"), 1)

	require.NoError(t, m.Lock(ctx))
	t.Cleanup(func() { _ = m.Unlock(context.Background()) })
	requireOneLineError(t, zkr(t, ns, "revoke", "/jobs/rev", "_c_no-such-lock-0000000099"), 1)
	r := zkr(t, ns, "revoke", "/jobs/rev")
	require.Equal(t, 0, r.code, r.stderr)
	select {
	case <-revoked:
	case <-ctx.Done():
		t.Fatal("the holder's revocation listener was never called")
	}
}

func TestDoctorFindsPersistentParentAndForeignChild(t *testing.T) {
	ns := namespace(t)
	c := connect(t, ns)
	ctx := ctxT(t, time.Minute)
	// The nodes of go-zookeeper's own zk.Lock, held: it makes its parents
	// persistent, and its node is ephemeral and sequential, with a
	// protected name whose guid is 32 hex digits. Then a foreign child
	// beside its node.
	_, err := c.Create(ctx, "/legacy", nil, 0)
	require.NoError(t, err)
	_, err = c.Create(ctx, "/legacy/lock", nil, 0)
	require.NoError(t, err)
	guid := make([]byte, 16)
	_, err = rand.Read(guid)
	require.NoError(t, err)
	legacy, err := c.Create(ctx, "/legacy/lock/_c_"+hex.EncodeToString(guid)+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Delete(context.Background(), legacy, -1) })
	_, err = c.Create(ctx, "/legacy/lock/stray", nil, 0)
	require.NoError(t, err)
	// A healthy zkrecipes lock: container parent, no finding.
	m, err := mutex.New(c, "/good/lock")
	require.NoError(t, err)
	require.NoError(t, m.Lock(ctx))
	t.Cleanup(func() { _ = m.Unlock(context.Background()) })

	r := zkr(t, ns, "doctor", "--json")
	require.Equal(t, 1, r.code, r.stderr)
	var fs []Finding
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &fs), r.stdout)
	got := map[string]string{}
	for _, f := range fs {
		got[f.Problem] = f.Path
	}
	require.Equal(t, map[string]string{"persistent-parent": "/legacy/lock", "foreign-child": "/legacy/lock/stray"}, got)
	r = zkr(t, ns, "doctor", "/good")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "no problems found")
	require.Regexp(t, `^session 0x[0-9a-f]+  Connected  server 127\.0\.0\.1:\d+  timeout \d+(\.\d+)?s  deletes pending 0  given up 0\n`, r.stdout)
	require.Regexp(t, `(?m)^nodes under /good [1-9]\d*  authenticated as ip:[0-9a-f.:]+$`, r.stdout)
	time.Sleep(20 * time.Millisecond)
	r = zkr(t, ns, "doctor", "--older-than", "10ms", "/good")
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	require.Regexp(t, `(?m)^old-holder  /good/lock/_c_[-0-9a-f]{36}-lock-0000000000  holder for `, r.stdout)

	// A semaphore with more lease nodes than the limit written on it (and
	// nobody waiting in locks/).
	_, err = c.Create(ctx, "/sem", []byte("1"), 0, client.WithParents())
	require.NoError(t, err)
	_, err = c.Create(ctx, "/sem/locks", nil, 0, client.WithParents())
	require.NoError(t, err)
	_, err = c.Create(ctx, "/sem/leases", nil, 0)
	require.NoError(t, err)
	for range 2 {
		_, err = c.CreateProtected(ctx, "/sem/leases/lease-", nil, zk.FlagEphemeral|zk.FlagSequence)
		require.NoError(t, err)
	}
	r = zkr(t, ns, "doctor", "/sem")
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "\nover-limit  /sem  2 lease nodes, limit 1 written on the node\n")
}

func TestBadInput(t *testing.T) {
	ns := namespace(t)
	start := time.Now()
	r := zkrNoServer(t, "--zk", "127.0.0.1:1", "--timeout", "1s", "show", "/x")
	requireOneLineError(t, r, 3)
	require.Less(t, time.Since(start), 20*time.Second) // bounded by --timeout, with a wide margin for a busy machine
	requireOneLineError(t, zkr(t, ns, "show", "no-slash"), 2)
	requireOneLineError(t, zkr(t, ns, "show", "/a//b"), 2)
	requireOneLineError(t, zkr(t, ns, "show"), 2)
	requireOneLineError(t, zkr(t, ns, "show", "--nope", "/x"), 2)
	requireOneLineError(t, zkr(t, ns, "frobnicate"), 2)
	requireOneLineError(t, zkr(t, ns, "lock", "/x"), 2)
	requireOneLineError(t, zkr(t, ns, "show", "/missing"), 1)
	requireOneLineError(t, zkr(t, ns, "revoke", "/missing"), 1)
	r = zkr(t, ns, "show", "--help")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stdout, "Examples:")
}

// zkrNoServer runs the binary with exactly args (no --zk of the shared server).
func zkrNoServer(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(zkrBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := runWithin(cmd, 90*time.Second)
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

func TestLockTryAndWaitGiveUpOnAHeldLock(t *testing.T) {
	ns := namespace(t)
	ctx := ctxT(t, time.Minute)
	m, err := mutex.New(connect(t, ns), "/jobs/busy", mutex.WithData([]byte("host-a")))
	require.NoError(t, err)
	require.NoError(t, m.Lock(ctx))
	t.Cleanup(func() { _ = m.Unlock(context.Background()) })
	dir := t.TempDir()
	r := zkrIn(t, dir, ns, "lock", "--try", "/jobs/busy", "--", "touch", "ran")
	requireOneLineError(t, r, 1)
	require.Contains(t, r.stderr, "host-a")
	r = zkrIn(t, dir, ns, "lock", "--wait", "300ms", "/jobs/busy", "--", "touch", "ran")
	requireOneLineError(t, r, 1)
	require.Contains(t, r.stderr, "not acquired within 300ms")
	require.NoFileExists(t, filepath.Join(dir, "ran"))
	// Nothing of theirs is left in the queue.
	kids, _, err := connect(t, ns).Children(ctx, "/jobs/busy")
	require.NoError(t, err)
	require.Len(t, kids, 1)
}
