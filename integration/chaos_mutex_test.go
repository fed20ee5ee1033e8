package integration

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
	"github.com/go-zkrecipes/zkrecipes/integration/zkharness"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// chaosSeed is CHAOS_SEED when set (to rerun a scenario), else a fresh seed.
func chaosSeed(t *testing.T) uint64 {
	if s := os.Getenv("CHAOS_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "CHAOS_SEED")
		return seed
	}
	return uint64(time.Now().UnixNano())
}

// TestChaosMutex (issue 13, the mutex): four participants, each its own
// client behind its own fault link, contend for one mutex on a server of
// their own while the seeded engine cuts and blackholes links (shorter
// than, around and longer than the session timeout), drops replies to
// create, getChildren and delete, and pauses or kills the server; then a
// calm phase. Asserted: porcupine finds the history linearizable against a
// one-holder model, no pair of holdings overlaps, the fenced store accepted
// no stale write, every margin from a holder's Lost() to the next grant is
// > 0, every participant was granted in the calm phase, no node is left
// under the lock path, and no goroutine leaks. CHAOS_SEED reruns a seed.
func TestChaosMutex(t *testing.T) {
	noLeaks(t)
	seed := chaosSeed(t)
	t.Logf("CHAOS_SEED=%d", seed)
	const (
		parts   = 4
		session = 1500 * time.Millisecond
		faultD  = 22 * time.Second
		calmD   = 8 * time.Second
		lockDir = "/chaos/mutex"
	)
	cluster := zkharness.ForTest(t, zkharness.WithServers(1))
	ns := namespace(t)
	tl := chaos.NewTimeline()
	hist := chaos.NewHistory(tl)
	store := &chaos.Store{}
	checker := connect(t, clientOpts{cluster: cluster, ns: ns, timeout: 10 * time.Second})

	engine := &chaos.Engine{Seed: seed, Cluster: cluster, Session: session, MaxGap: session / 2, Events: tl, Holder: hist.Holder}
	var workers []*chaos.MutexWorker
	var unwatch []func()
	for i := range parts {
		link := newLink(t)
		c := connect(t, clientOpts{cluster: cluster, ns: ns, link: link, timeout: session})
		unwatch = append(unwatch, chaos.WatchClient(tl, chaos.PartName(i), c))
		m, err := mutex.New(c, lockDir)
		require.NoError(t, err)
		engine.Targets = append(engine.Targets, chaos.Target{Name: chaos.PartName(i), Link: link})
		workers = append(workers, &chaos.MutexWorker{Who: i, M: m, History: hist, Store: store, Timeline: tl, Seed: seed, Session: session})
	}
	defer func() {
		for _, u := range unwatch {
			u()
		}
	}()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	engine.Run(ctx, faultD)
	calmStart := time.Now()
	tl.Add("fault", "CALM phase begins")
	time.Sleep(calmD)
	cancel()
	wg.Wait()
	tl.Add("test", "workers stopped")

	// Every holding is released: nothing may stay under the lock path once
	// the sessions the faults left behind have expired on the server.
	var orphans []string
	deadline := time.Now().Add(3*session + 5*time.Second)
	for {
		kids, err := tryChildren(checker, lockDir)
		if err == nil && len(kids) == 0 {
			orphans = nil
			break
		}
		orphans = kids
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}

	r := chaos.Analyze(seed, engine, hist, store, tl, orphans, calmStart, parts)
	t.Log(r.Summary("mutex"))
	for _, f := range engine.Faults() {
		if f.Err != nil {
			t.Logf("fault error: %v", f)
		}
	}
	if !r.OK() {
		t.Errorf("chaos mutex failed (rerun with CHAOS_SEED=%d):\n%s", seed, r.Explain(tl, 2*time.Second, 3))
	}
	require.True(t, r.Linearizable, "porcupine: history not linearizable against one holder")
	require.Empty(t, r.Overlaps, "overlapping holdings")
	require.Zero(t, r.Store.StaleAccepted, "stale writes accepted")
	require.Empty(t, r.BadMargins(), "margins <= 0")
	require.Empty(t, r.Orphans, "orphans")
	require.Empty(t, r.CalmStuck, "participants without progress in the calm phase")
	require.NotZero(t, r.Grants, fmt.Sprint("no grants"))
}
