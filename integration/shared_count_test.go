package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	zkshared "github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// Tests of recipes/zkshared.Count, the shared count. Helpers of this file
// start with "shc".

// shcStart makes and starts a count on c, closed at cleanup.
func shcStart(t *testing.T, c *client.Client, path string, seed int32) *zkshared.Count {
	t.Helper()
	cnt, err := zkshared.NewCount(c, path, seed)
	require.NoError(t, err)
	require.NoError(t, cnt.Start(ctxT(t, 30*time.Second)))
	t.Cleanup(func() { _ = cnt.Close() })
	return cnt
}

// shcBytes is the node's raw data as c sees it.
func shcBytes(t *testing.T, c *client.Client, path string) ([]byte, *zk.Stat) {
	t.Helper()
	data, st, err := c.Get(ctxT(t, 10*time.Second), path)
	require.NoError(t, err)
	return data, st
}

// shcNext waits up to d for the next value on ch.
func shcNext(t *testing.T, ch <-chan zkshared.Value, d time.Duration) zkshared.Value {
	t.Helper()
	select {
	case v, ok := <-ch:
		require.True(t, ok, "Events was closed")
		return v
	case <-time.After(d):
		require.FailNowf(t, "no change", "no value on Events within %v", d)
		return zkshared.Value{}
	}
}

// shcAwait receives from ch until a value with count want arrives.
func shcAwait(t *testing.T, ch <-chan zkshared.Value, want int32, d time.Duration) zkshared.Value {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		v := shcNext(t, ch, time.Until(deadline))
		if v.Count == want {
			return v
		}
	}
}

// TestSharedCountSeed: Start creates a PERSISTENT node holding the seed as 4
// big-endian bytes; a second count on the path reads that value and leaves
// its own seed unused; the node outlives the session that made it.
func TestSharedCountSeed(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	cnt := shcStart(t, c, "/counts/seeded", -2)

	v, err := cnt.Get()
	require.NoError(t, err)
	data, st := shcBytes(t, c, "/counts/seeded")
	assert.Equal(t, int32(-2), v.Count)
	assert.Equal(t, []byte{0xff, 0xff, 0xff, 0xfe}, data, "Curator's encoding of -2")
	assert.Equal(t, st.Version, v.Version)
	assert.Equal(t, st.Mzxid, v.Mzxid)
	assert.Zero(t, st.EphemeralOwner, "the count node is persistent")

	other := shcStart(t, connect(t, clientOpts{ns: ns}), "/counts/seeded", 99)
	w, err := other.Get()
	require.NoError(t, err)
	assert.Equal(t, v, w, "the second count reads the first one's seed")

	require.NoError(t, cnt.Close())
	require.NoError(t, c.Close())
	later := shcStart(t, connect(t, clientOpts{ns: ns}), "/counts/seeded", 5)
	w, err = later.Get()
	require.NoError(t, err)
	assert.Equal(t, int32(-2), w.Count, "the count outlived the session that made it")
}

// TestSharedCountChanges: a Set through another client reaches the count
// through Events and Get; the writer's own count has it at once.
func TestSharedCountChanges(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	reader := shcStart(t, connect(t, clientOpts{ns: ns}), "/count", 1)
	writer := shcStart(t, connect(t, clientOpts{ns: ns}), "/count", 1)
	ctx := ctxT(t, 30*time.Second)
	changes, cancel := reader.Events()
	defer cancel()

	for _, n := range []int32{42, -7, 42} {
		require.NoError(t, writer.Set(ctx, n))
		mine, err := writer.Get()
		require.NoError(t, err)
		assert.Equal(t, n, mine.Count, "the writer's Get after its own Set")

		got := shcNext(t, changes, 10*time.Second)
		assert.Equal(t, mine, got, "the reader sees the write, with its version and mzxid")
		now, err := reader.Get()
		require.NoError(t, err)
		assert.Equal(t, got, now)
	}
}

// TestSharedCountTrySetRace (acceptance 6): five clients TrySet from the same
// version at once, round after round: exactly one wins each round, and the
// node's version moves by exactly one.
func TestSharedCountTrySetRace(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	const clients, rounds = 5, 20
	counts := make([]*zkshared.Count, clients)
	for i := range counts {
		counts[i] = shcStart(t, connect(t, clientOpts{ns: ns}), "/race", 0)
	}
	raw := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 2*time.Minute)

	for round := 0; round < rounds; round++ {
		_, st := shcBytes(t, raw, "/race")
		// Every count must start the round from the current version.
		prev := make([]zkshared.Value, clients)
		require.Eventually(t, func() bool {
			for i, cnt := range counts {
				v, err := cnt.Get()
				if err != nil || v.Version != st.Version {
					return false
				}
				prev[i] = v
			}
			return true
		}, 10*time.Second, 5*time.Millisecond, "round %d: the counts never all read version %d", round, st.Version)

		start := make(chan struct{})
		won := make([]bool, clients)
		errs := make([]error, clients)
		var wg sync.WaitGroup
		for i, cnt := range counts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				won[i], errs[i] = cnt.TrySet(ctx, prev[i], int32(1000*round+i))
			}()
		}
		close(start)
		wg.Wait()
		winners := 0
		winner := -1
		for i := range counts {
			require.NoError(t, errs[i], "round %d, client %d", round, i)
			if won[i] {
				winners++
				winner = i
			}
		}
		require.Equal(t, 1, winners, "round %d: exactly one TrySet wins", round)
		data, after := shcBytes(t, raw, "/race")
		assert.Equal(t, st.Version+1, after.Version, "round %d: one write per version", round)
		assert.Equal(t, int32(1000*round+winner), int32(binaryBE(data)), "round %d: the winner's value", round)
		// The losers learned the winner's value from TrySet itself.
		for i, cnt := range counts {
			v, err := cnt.Get()
			require.NoError(t, err)
			assert.Equal(t, after.Version, v.Version, "round %d, client %d: Get right after TrySet", round, i)
		}
	}
}

// binaryBE decodes a 4-byte big-endian count (for checks on raw data).
func binaryBE(data []byte) int32 {
	if len(data) != 4 {
		return -1 << 31
	}
	return int32(uint32(data[0])<<24 | uint32(data[1])<<16 | uint32(data[2])<<8 | uint32(data[3]))
}

// TestSharedCountBurst (acceptance 6): after a burst of 1,000 Sets, a slow
// reader on another client receives values that only go forward, the last
// of them the final one (the server's watch may skip values written between
// two reads); the writer's own subscription, never read during the burst,
// holds every value the writer wrote, in order, each once: nothing is
// dropped however slowly a subscriber reads.
func TestSharedCountBurst(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	reader := shcStart(t, connect(t, clientOpts{ns: ns}), "/burst", 0)
	writer := shcStart(t, connect(t, clientOpts{ns: ns}), "/burst", 0)
	ctx := ctxT(t, 2*time.Minute)
	const sets = 1000

	type seen struct {
		last     zkshared.Value
		received int
		backward int
	}
	slow, cancelSlow := reader.Events()
	defer cancelSlow()
	mine, cancelMine := writer.Events()
	defer cancelMine()
	got := make(chan seen, 1)
	go func() {
		var s seen
		defer func() { got <- s }()
		for v := range slow {
			if v.Mzxid <= s.last.Mzxid || v.Count <= s.last.Count {
				s.backward++
			}
			s.last = v
			s.received++
			if v.Count == sets {
				return
			}
			time.Sleep(time.Millisecond) // a slow consumer: values queue up
		}
	}()

	for i := 1; i <= sets; i++ {
		require.NoError(t, writer.Set(ctx, int32(i)))
	}
	final, err := writer.Get()
	require.NoError(t, err)
	require.Equal(t, int32(sets), final.Count)

	var s seen
	select {
	case s = <-got:
	case <-time.After(30 * time.Second):
		require.FailNow(t, "the slow reader never received the final value")
	}
	t.Logf("the reader received %d values for %d sets", s.received, sets)
	assert.Equal(t, final, s.last, "the last value received is the final one")
	assert.Zero(t, s.backward, "a value not newer than one already received")
	shcNone(t, slow, 500*time.Millisecond, "a value after the final one")

	// The writer never read its own subscription: it holds every value.
	for i := 1; i <= sets; i++ {
		v := shcNext(t, mine, 10*time.Second)
		require.Equal(t, int32(i), v.Count, "the writer's value number %d", i)
		if i == sets {
			assert.Equal(t, final, v, "the writer's last value")
		}
	}
	shcNone(t, mine, 300*time.Millisecond, "a value after the writer's last")
}

// shcNone requires that no value arrives on ch for quiet.
func shcNone(t *testing.T, ch <-chan zkshared.Value, quiet time.Duration, what string) {
	t.Helper()
	select {
	case v, ok := <-ch:
		if ok {
			require.FailNowf(t, "an unexpected value", "%s: %+v", what, v)
		}
	case <-time.After(quiet):
	}
}

// TestSharedCountSubscribe: several subscribers each get every value the
// count reads, in the same order, independently of each other (one that
// reads nothing until the end still gets them all); cancel closes one
// subscription only, and Close closes the rest.
func TestSharedCountSubscribe(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	reader := shcStart(t, connect(t, clientOpts{ns: ns}), "/subs", 0)
	writer := shcStart(t, connect(t, clientOpts{ns: ns}), "/subs", 0)
	ctx := ctxT(t, time.Minute)
	a, cancelA := reader.Events()
	b, cancelB := reader.Events()
	defer cancelB()
	idle, cancelIdle := reader.Events()
	defer cancelIdle()

	const sets = 200
	for i := 1; i <= sets; i++ {
		require.NoError(t, writer.Set(ctx, int32(i)))
	}
	final, err := writer.Get()
	require.NoError(t, err)
	// upTo receives from ch until the final value and returns what came.
	upTo := func(ch <-chan zkshared.Value, who string) []zkshared.Value {
		var out []zkshared.Value
		for {
			v := shcNext(t, ch, 20*time.Second)
			out = append(out, v)
			if v.Count == sets {
				assert.Equal(t, final, v, who)
				return out
			}
		}
	}
	gotA := upTo(a, "subscriber a")
	assert.Equal(t, gotA, upTo(b, "subscriber b"), "subscribers a and b got the same values")
	assert.Equal(t, gotA, upTo(idle, "the idle subscriber"), "a subscriber that read nothing until now got every value")
	for i := 1; i < len(gotA); i++ {
		assert.Greater(t, gotA[i].Mzxid, gotA[i-1].Mzxid, "values in order")
	}

	cancelA()
	cancelA() // harmless
	_, ok := <-a
	assert.False(t, ok, "a cancelled subscription is closed")
	require.NoError(t, writer.Set(ctx, sets+1))
	assert.Equal(t, int32(sets+1), shcNext(t, b, 10*time.Second).Count, "b still subscribed")
	assert.Equal(t, int32(sets+1), shcNext(t, idle, 10*time.Second).Count, "idle still subscribed")

	require.NoError(t, reader.Close())
	for _, ch := range []<-chan zkshared.Value{b, idle} {
		for range ch { // closed by Close
		}
	}
	after, _ := reader.Events()
	_, ok = <-after
	assert.False(t, ok, "Events after Close")
}

// TestSharedCountReconnect: a value set while the count's client was cut off
// is read once the connection is back: on the same session (a short cut)
// and on a new one (a cut past the session timeout).
func TestSharedCountReconnect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		cut     time.Duration
		newSess bool
	}{
		{"same session", 6 * time.Second, 500 * time.Millisecond, false},
		{"new session", 1500 * time.Millisecond, 4 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeaks(t)
			ns := namespace(t)
			link := newLink(t)
			c := connect(t, clientOpts{ns: ns, link: link, timeout: tc.timeout})
			cnt := shcStart(t, c, "/count", 10)
			other := shcStart(t, connect(t, clientOpts{ns: ns}), "/count", 10)
			ctx := ctxT(t, time.Minute)
			sid := c.Session().ID()
			events, cancel := c.Subscribe()
			defer cancel()
			values, stop := cnt.Events()
			defer stop()

			link.Cut()
			clExpect(t, events, client.StateSuspended, sid, 10*time.Second)
			require.NoError(t, other.Set(ctx, 11))
			require.NoError(t, other.Set(ctx, 12))
			if tc.newSess {
				clExpect(t, events, client.StateLost, sid, 4*tc.timeout)
			}
			time.Sleep(tc.cut)
			v, err := cnt.Get()
			require.NoError(t, err)
			assert.Equal(t, int32(10), v.Count, "nothing read while cut off")

			link.Restore()
			ev := clNext(t, events, 30*time.Second)
			require.Equal(t, client.StateReconnected, ev.State, clDescribe(ev))
			assert.Equal(t, tc.newSess, ev.SessionID != sid, "session after the cut")
			got := shcAwait(t, values, 12, 10*time.Second)
			want, err := other.Get()
			require.NoError(t, err)
			assert.Equal(t, want, got)

			// The watch is in place again: later writes arrive too.
			require.NoError(t, other.Set(ctx, 13))
			assert.Equal(t, int32(13), shcNext(t, values, 10*time.Second).Count)
		})
	}
}

// TestSharedCountBadData: data that is not 4 bytes fails Start with a
// *BadDataError and, once started, makes Get report it with the node's
// version, so TrySet can repair it. A deleted node is reported too, and a
// re-created one read again. Nothing panics.
func TestSharedCountBadData(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	raw := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, time.Minute)
	_, err := raw.Create(ctx, "/bad", []byte("abc"), zk.FlagPersistent, client.WithParents())
	require.NoError(t, err)

	cnt, err := zkshared.NewCount(c, "/bad", 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cnt.Close() })
	err = cnt.Start(ctx)
	var bad *zkshared.BadDataError
	require.ErrorAs(t, err, &bad)
	assert.ErrorIs(t, err, zkshared.ErrBadData)
	assert.Equal(t, []byte("abc"), bad.Data)
	assert.Equal(t, "/bad", bad.Path)
	_, err = cnt.Get()
	assert.ErrorIs(t, err, zkrecipes.ErrNotStarted, "a failed Start leaves the count not started")
	data, _ := shcBytes(t, raw, "/bad")
	assert.Equal(t, []byte("abc"), data, "Start did not overwrite the data")

	// Repaired, Start works.
	_, err = raw.Set(ctx, "/bad", []byte{0, 0, 0, 3}, -1)
	require.NoError(t, err)
	require.NoError(t, cnt.Start(ctx))
	v, err := cnt.Get()
	require.NoError(t, err)
	assert.Equal(t, int32(3), v.Count)

	// Bad data written later: Get reports it with the node's version.
	st, err := raw.Set(ctx, "/bad", []byte{1, 2, 3, 4, 5}, -1)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := cnt.Get()
		return errors.Is(err, zkshared.ErrBadData)
	}, 10*time.Second, 10*time.Millisecond)
	v, err = cnt.Get()
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, st.Version, v.Version)
	assert.Equal(t, []byte{1, 2, 3, 4, 5}, bad.Data)
	ok, err := cnt.TrySet(ctx, v, 9)
	require.NoError(t, err)
	require.True(t, ok, "TrySet from the bad value's version repairs it")
	v, err = cnt.Get()
	require.NoError(t, err)
	assert.Equal(t, int32(9), v.Count)

	// Deleted: Get says so and keeps the last value; re-created: read again.
	require.NoError(t, raw.Delete(ctx, "/bad", -1))
	require.Eventually(t, func() bool {
		_, err := cnt.Get()
		return errors.Is(err, zk.ErrNoNode)
	}, 10*time.Second, 10*time.Millisecond)
	last, _ := cnt.Get()
	assert.Equal(t, int32(9), last.Count)
	_, err = raw.Create(ctx, "/bad", []byte{0, 0, 0, 4}, zk.FlagPersistent)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := cnt.Get()
		return err == nil && v.Count == 4
	}, 10*time.Second, 10*time.Millisecond, "the re-created node is read")
	v, _ = cnt.Get()
	assert.Zero(t, v.Version, "a new node starts at version 0")
}

// TestSharedCountClose: Close stops the watcher (no goroutine left), closes
// every Events channel, and a second Close returns nil as the first; every
// later call fails with ErrClosed (Events gives a closed channel). Closing
// the client ends the count's watcher and its subscriptions as well.
func TestSharedCountClose(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)
	cnt := shcStart(t, c, "/count", 1)
	err := cnt.Start(ctx)
	assert.ErrorIs(t, err, zkrecipes.ErrAlreadyStarted)

	values, stop := cnt.Events()
	defer stop()
	require.NoError(t, cnt.Close())
	require.NoError(t, cnt.Close(), "a second Close returns nil, as the first")
	_, ok := <-values
	assert.False(t, ok, "Close closed the subscription")
	later, _ := cnt.Events()
	_, ok = <-later
	assert.False(t, ok, "Events after Close")
	_, err = cnt.Get()
	assert.ErrorIs(t, err, zkrecipes.ErrClosed)
	assert.ErrorIs(t, cnt.Set(ctx, 2), zkrecipes.ErrClosed)
	_, err = cnt.TrySet(ctx, zkshared.Value{}, 2)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed)
	assert.ErrorIs(t, cnt.Start(ctx), zkrecipes.ErrClosed)
	data, _ := shcBytes(t, c, "/count")
	assert.Equal(t, []byte{0, 0, 0, 1}, data, "nothing was written after Close, and the node stays")

	// A count whose client closes: its subscription closes, Get says
	// ErrClosed.
	c2 := connect(t, clientOpts{ns: ns})
	cnt2 := shcStart(t, c2, "/count", 1)
	values2, stop2 := cnt2.Events()
	defer stop2()
	require.NoError(t, c2.Close())
	select {
	case _, ok := <-values2:
		assert.False(t, ok, "a value instead of the close")
	case <-time.After(10 * time.Second):
		t.Fatal("Events still open after the client closed")
	}
	_, err = cnt2.Get()
	assert.ErrorIs(t, err, zkrecipes.ErrClosed)
	require.NoError(t, cnt2.Close())
}

// shcJava runs testdata/curator/CuratorSharedCount.java (compiled once per
// test binary) with args and returns its "curator:" line, parsed.
func shcJava(t *testing.T, ctx context.Context, args ...string) (count int32, version int32, raw []byte) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "java", append([]string{"-Xmx128m", "-cp", compileJava(t, "CuratorSharedCount"), "CuratorSharedCount",
		shared.ConnectString()}, args...)...)
	out, err := cmd.Output() // stderr: slf4j's "no binding" notice
	require.NoError(t, err, "java %v: %s", args, out)
	sc := bufio.NewScanner(bytes.NewReader(out))
	line := regexp.MustCompile(`^curator: count=(-?\d+) version=(\d+) bytes=([0-9a-f]*)$`)
	for sc.Scan() {
		if m := line.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 32)
			v, _ := strconv.ParseInt(m[2], 10, 32)
			b, err := hex.DecodeString(m[3])
			require.NoError(t, err)
			return int32(n), int32(v), b
		}
	}
	require.FailNowf(t, "no result", "java %v printed no count:\n%s", args, out)
	return 0, 0, nil
}

// TestSharedCountCuratorInterop (acceptance 5): Curator 5.4's own
// SharedCount and ours read each other's values, byte for byte: Java sets,
// Go reads (through Events and the raw node); Go sets, Java reads and
// prints both its count and the raw bytes.
func TestSharedCountCuratorInterop(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	path := ns + "/count" // Curator sees absolute paths: no namespace
	c := connect(t, clientOpts{})
	ctx := ctxT(t, 3*time.Minute)
	cnt := shcStart(t, c, path, 1)
	values, stop := cnt.Events()
	defer stop()

	for _, n := range []int32{-123456789, 2147483647} {
		jc, jv, jraw := shcJava(t, ctx, path, "set", strconv.Itoa(int(n)))
		assert.Equal(t, n, jc, "Java's own reading after its set")
		got := shcAwait(t, values, n, 10*time.Second)
		assert.Equal(t, jv, got.Version, "Go reads the version Java wrote")
		data, _ := shcBytes(t, c, path)
		assert.Equal(t, jraw, data, "the bytes Java wrote")
		assert.Equal(t, []byte{byte(uint32(n) >> 24), byte(uint32(n) >> 16), byte(uint32(n) >> 8), byte(uint32(n))}, data)
	}

	for _, n := range []int32{2024, -1, -2147483648} {
		require.NoError(t, cnt.Set(ctx, n))
		want, _ := shcBytes(t, c, path)
		v, err := cnt.Get()
		require.NoError(t, err)
		jc, jv, jraw := shcJava(t, ctx, path, "await", strconv.Itoa(int(n)))
		t.Logf("Go set %d (%x); Java read count=%d version=%d bytes=%x", n, want, jc, jv, jraw)
		assert.Equal(t, n, jc, "Java's SharedCount reads what Go set")
		assert.Equal(t, v.Version, jv)
		assert.Equal(t, want, jraw, "the bytes Go wrote, as Java read them")
	}
	assert.Equal(t, []string{"count"}, children(t, c, ns), "one node, shared by both sides")
}
