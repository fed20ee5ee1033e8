package barrierit

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// qty is Curator's QTY: the members of the double barrier tests.
const qty = 5

// tally follows, on the test's clock, how many members called Enter, how
// many are inside (between Enter's return and Leave's call), the most at
// once, and how many called Leave, as Curator's tests count them.
type tally struct {
	mu                      sync.Mutex
	entering, inside, most  int
	leaving                 int
	enteredEarly, leftEarly int // a member that passed while fewer than all had come
	rounds                  map[int64]int
}

func (y *tally) enter() { y.mu.Lock(); y.entering++; y.mu.Unlock() }

// entered records a member's Enter returning nil with round; it counts an
// early pass when fewer than all had called Enter.
func (y *tally) entered(all int, round int64) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.entering < all {
		y.enteredEarly++
	}
	y.inside++
	y.most = max(y.most, y.inside)
	if y.rounds == nil {
		y.rounds = map[int64]int{}
	}
	y.rounds[round]++
}

func (y *tally) leave() { y.mu.Lock(); y.inside--; y.leaving++; y.mu.Unlock() }

// left records a member's Leave returning nil; it counts an early return
// when fewer than all had called Leave.
func (y *tally) left(all int) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.leaving < all {
		y.leftEarly++
	}
}

// latch is Curator's CountDownLatch: Await returns once Done was called n
// times, or after 30 s (false).
type latch struct {
	wg   sync.WaitGroup
	done chan struct{}
}

func newLatch(n int) *latch {
	l := &latch{done: make(chan struct{})}
	l.wg.Add(n)
	go func() { l.wg.Wait(); close(l.done) }()
	return l
}

func (l *latch) Done() { l.wg.Done() }

func (l *latch) Await() bool {
	select {
	case <-l.done:
		return true
	case <-time.After(30 * time.Second):
		return false
	}
}

// cycle is one member's Enter and Leave with the tally, and Curator's
// latch between them (postEnterLatch: every member counted itself inside
// before any leaves); it returns the first error.
func cycle(r *rig, d *barrier.Double, y *tally, all int, postEnter *latch) error {
	y.enter()
	if err := d.Enter(r.ctx); err != nil {
		return err
	}
	y.entered(all, d.Round())
	postEnter.Done()
	if !postEnter.Await() {
		return errors.New("not every member got in")
	}
	y.leave()
	if err := d.Leave(r.ctx); err != nil {
		return err
	}
	y.left(all)
	return nil
}

// check asserts what Curator's tests assert (the most inside at once is
// all, none is left inside), and what they cannot see: nobody passed Enter
// before all had called it, nobody passed Leave before all had called it,
// and all passed one opening.
func (y *tally) check(t *testing.T, all int) {
	t.Helper()
	y.mu.Lock()
	defer y.mu.Unlock()
	require.Equal(t, all, y.most, "most inside at once")
	require.Zero(t, y.inside, "inside at the end")
	require.Zero(t, y.enteredEarly, "passed Enter before all had called it")
	require.Zero(t, y.leftEarly, "passed Leave before all had called it")
	require.Len(t, y.rounds, 1, "openings passed: %v", y.rounds)
}

// cycleAll runs cycle for qty members of one double barrier at /barrier,
// each on the client clientFor returns, then asserts the tally and that
// nothing is left under the path.
func cycleAll(t *testing.T, r *rig, clientFor func() *client.Client) {
	t.Helper()
	var y tally
	postEnter := newLatch(qty)
	var wg sync.WaitGroup
	errs := make(chan error, qty)
	for range qty {
		d := r.double(clientFor(), "/barrier", qty)
		wg.Add(1)
		go func() { defer wg.Done(); errs <- cycle(r, d, &y, qty, postEnter) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	y.check(t, qty)
	r.requireEmpty("/barrier")
}

// TestDistributedDoubleBarrierBasic ports testBasic: QTY members on one
// client enter and leave together.
func TestDistributedDoubleBarrierBasic(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	c := r.client(nil, 0)
	cycleAll(t, r, func() *client.Client { return c })
}

// TestDistributedDoubleBarrierMultiClient ports testMultiClient: QTY
// members, each its own client, enter and leave together.
func TestDistributedDoubleBarrierMultiClient(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	cycleAll(t, r, func() *client.Client { return r.client(nil, 0) })
}

// TestDistributedDoubleBarrierOverSubscribed ports testOverSubscribed:
// QTY+1 members of a QTY barrier, every one of whose nodes is made before
// any member counts (Curator holds getChildrenForEntering until all have
// come; here each member's create reply is dropped and its link cut until
// all the nodes are on the server). Each then counts QTY+1 >= QTY: all
// pass, through one opening, and all leave.
func TestDistributedDoubleBarrierOverSubscribed(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	// The path exists, so that each member's first create is its node's.
	_, err := r.c.Create(r.ctx, "/barrier", nil, 0)
	require.NoError(t, err)
	var links []*faultlink.Link
	var members []*barrier.Double
	var entered []<-chan error
	for range qty + 1 {
		link := itest.NewLink(t)
		d := r.double(r.client(link, 0), "/barrier", qty)
		fired := link.DropReplyTo(faultlink.OpCreate)
		res := r.enter(d)
		select {
		case <-fired:
		case <-time.After(10 * time.Second):
			require.FailNow(t, "the member's create never went out")
		}
		link.Cut() // before the muted connection closes: no retry until Restore
		links, members, entered = append(links, link), append(members, d), append(entered, res)
	}
	require.Len(t, r.waitMembers("/barrier", qty+1), qty+1, "every node made before any member counted")
	for _, res := range entered {
		itest.Pending(t, res, 0, "Enter while its link is cut")
	}
	for _, l := range links {
		l.Restore()
	}
	rounds := map[int64]bool{}
	for i, res := range entered {
		require.NoError(t, await(t, res, "Enter of an over-subscribed member"))
		rounds[members[i].Round()] = true
	}
	require.Len(t, rounds, 1, "one opening")
	var left []<-chan error
	for _, d := range members {
		left = append(left, r.leave(d))
	}
	for _, res := range left {
		require.NoError(t, await(t, res, "Leave of an over-subscribed member"))
	}
	r.requireEmpty("/barrier")
	require.NoError(t, r.c.Delete(r.ctx, "/barrier", -1))
}

// TestDistributedDoubleBarrierSpuriousWakeup ports testSpuriousWakeup
// (GH-1290: a timed enter passed on any notification, a reconnect
// included). A member of a two-member barrier waits alone while it is
// woken without an opening, over and over: its link is cut and restored
// (reconnects, its watch set again), and the ready node is created and
// deleted in one transaction (its watch fires, the node is gone when it
// looks). It must not pass; once a second member comes, both pass.
func TestDistributedDoubleBarrierSpuriousWakeup(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	link := itest.NewLink(t)
	c1 := r.client(link, 0)
	d1 := r.double(c1, "/barrier", 2)
	res := r.enter(d1)
	r.waitMembers("/barrier", 1)
	states, unsub := c1.Subscribe()
	defer unsub()
	sid := c1.Session().ID()
	for range 3 {
		link.Cut()
		itest.WaitState(t, states, client.StateSuspended, sid, 10*time.Second)
		link.Restore()
		itest.WaitState(t, states, client.StateReconnected, sid, 10*time.Second)
		itest.Pending(t, res, 0, "Enter woken by a reconnect")
	}
	for range 5 {
		_, err := r.c.Multi(r.ctx,
			&zk.CreateRequest{Path: "/barrier/ready"},
			&zk.DeleteRequest{Path: "/barrier/ready", Version: -1})
		require.NoError(t, err)
	}
	itest.Pending(t, res, quiet, "Enter woken by a ready node gone when it looked")
	require.Len(t, r.members("/barrier"), 1, "the waiting member keeps its one node")

	d2 := r.double(r.client(nil, 0), "/barrier", 2)
	require.NoError(t, d2.Enter(r.ctx))
	require.NoError(t, await(t, res, "Enter once the second member came"))
	require.Equal(t, d1.Round(), d2.Round())
	r.leaveAll("/barrier", d1, d2)
}
