package barrierit

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestDoubleBarrierRoundsOnOnePath: three members, each its own client,
// go through eight rounds of one barrier path, with random pauses inside
// and between rounds so that a member still leaving round k meets the
// nodes of round k+1 (with Curator, such a member waited for them to
// leave while they waited for it to enter). In every round: nobody passed
// Enter before all three had called it, nobody returned from Leave before
// all three had called it, all three passed one opening, and each round's
// opening is a later one than the last.
func TestDoubleBarrierRoundsOnOnePath(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, 2*time.Minute)
	const members, rounds = 3, 8
	type roundLog struct {
		entering, leaving int
		early, leftEarly  int
		opening           map[int64]int
	}
	var mu sync.Mutex
	logs := make([]roundLog, rounds)
	var wg sync.WaitGroup
	errs := make(chan error, members)
	for i := range members {
		d := r.double(r.client(nil, 0), "/barrier", members)
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))
		pause := func() { time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond) }
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range rounds {
				mu.Lock()
				logs[k].entering++
				mu.Unlock()
				if err := d.Enter(r.ctx); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				if logs[k].entering < members {
					logs[k].early++
				}
				if logs[k].opening == nil {
					logs[k].opening = map[int64]int{}
				}
				logs[k].opening[d.Round()]++
				mu.Unlock()
				pause()
				mu.Lock()
				logs[k].leaving++
				mu.Unlock()
				if err := d.Leave(r.ctx); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				if logs[k].leaving < members {
					logs[k].leftEarly++
				}
				mu.Unlock()
				pause()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var last int64
	for k, l := range logs {
		require.Zero(t, l.early, "round %d: passed Enter before all had called it", k)
		require.Zero(t, l.leftEarly, "round %d: returned from Leave before all had called it", k)
		require.Len(t, l.opening, 1, "round %d: openings %v", k, l.opening)
		for id, n := range l.opening {
			require.Equal(t, members, n, "round %d", k)
			require.Greater(t, id, last, "round %d's opening is not after the last", k)
			last = id
		}
	}
	r.requireEmpty("/barrier")
}

// TestDoubleBarrierLeaveWaitsForItsOwn: Leave waits for the members that
// were in when it began, not for nodes made later. Three members are in;
// two of them leave and wait for the third; then a node appears whose
// name sorts first (a member of a next round, or a late arrival). With
// Curator the two would now wait for that node, the lowest. Here they
// return once the third member leaves; the third, which began to leave
// after the node appeared, waits for it too, and returns once it goes.
func TestDoubleBarrierLeaveWaitsForItsOwn(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	var ds []*barrier.Double
	var links []*faultlink.Link
	var entered []<-chan error
	for range 3 {
		link := itest.NewLink(t)
		d := r.double(r.client(link, 0), "/barrier", 3)
		ds, links, entered = append(ds, d), append(links, link), append(entered, r.enter(d))
	}
	for _, e := range entered {
		require.NoError(t, await(t, e, "Enter"))
	}
	listed := []int64{links[0].Requests(faultlink.OpGetChildren2), links[1].Requests(faultlink.OpGetChildren2)}
	l0, l1 := r.leave(ds[0]), r.leave(ds[1])
	itest.Eventually(t, 15*time.Second, "the two leavers' first listing", func() bool {
		return links[0].Requests(faultlink.OpGetChildren2) > listed[0] && links[1].Requests(faultlink.OpGetChildren2) > listed[1]
	})
	itest.Pending(t, l0, quiet, "Leave while the third member is in")
	itest.Pending(t, l1, 0, "Leave while the third member is in")
	const early = "/barrier/00000000-0000-4000-8000-000000000000"
	_, err := r.c.Create(r.ctx, early, nil, 0)
	require.NoError(t, err)
	l2 := r.leave(ds[2])
	require.NoError(t, await(t, l0, "Leave of a member that began before the node appeared"))
	require.NoError(t, await(t, l1, "Leave of a member that began before the node appeared"))
	itest.Pending(t, l2, quiet, "Leave of the member that began after the node appeared")
	require.NoError(t, r.c.Delete(r.ctx, early, -1))
	require.NoError(t, await(t, l2, "Leave once the node is gone"))
	r.requireEmpty("/barrier")
}

// TestDoubleBarrierWithoutHerd counts each member's requests through its
// own fault link. Six members arrive one after another: a waiting member
// sends nothing while the others arrive (it waits on the ready node alone;
// no listing per arrival), and wakes once for the opening (one read of
// the ready node, no listing). Then all six leave at once: every member
// but the lowest lists twice (once to find the lowest, once when the
// lowest is gone), and the lowest at most once per member.
func TestDoubleBarrierWithoutHerd(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	const n = 6
	reads := []int32{faultlink.OpGetChildren2, faultlink.OpGetChildren, faultlink.OpExists, faultlink.OpGetData}
	count := func(l *faultlink.Link) (sum int64) {
		for _, op := range reads {
			sum += l.Requests(op)
		}
		return sum
	}
	var links []*faultlink.Link
	var ds []*barrier.Double
	var entered []<-chan error
	var afterArrival []int64
	for i := range n {
		link := itest.NewLink(t)
		d := r.double(r.client(link, 0), "/barrier", n)
		res := r.enter(d)
		r.waitMembers("/barrier", i+1)
		if i < n-1 {
			// Its one listing is the last read before it waits.
			itest.Eventually(t, 10*time.Second, "the member's listing", func() bool {
				return link.Requests(faultlink.OpGetChildren2) >= 1
			})
			itest.Pending(t, res, quiet, "Enter of a member before all are in")
			require.Equal(t, int64(1), link.Requests(faultlink.OpGetChildren2), "member %d listed more than once before waiting", i)
		}
		links, ds, entered = append(links, link), append(ds, d), append(entered, res)
		afterArrival = append(afterArrival, count(link))
		for j := range i {
			if i < n-1 { // the last arrival opens the barrier: then each waiter wakes
				require.Equal(t, afterArrival[j], count(links[j]), "member %d read something when member %d arrived", j, i)
			}
		}
	}
	for _, e := range entered {
		require.NoError(t, await(t, e, "Enter"))
	}
	for j := range n - 1 {
		require.Equal(t, int64(1), links[j].Requests(faultlink.OpGetChildren2), "member %d listed after the opening", j)
		require.Equal(t, afterArrival[j]+1, count(links[j]), "member %d: reads on waking, want one", j)
	}

	listed := make([]int64, n)
	lowest := -1
	first := r.members("/barrier")[0]
	for i, l := range links {
		listed[i] = l.Requests(faultlink.OpGetChildren2)
		if ds[i].Node() == "/barrier/"+first {
			lowest = i
		}
	}
	require.GreaterOrEqual(t, lowest, 0, "no member has the lowest node %s", first)
	var left []<-chan error
	for _, d := range ds {
		left = append(left, r.leave(d))
	}
	for _, l := range left {
		require.NoError(t, await(t, l, "Leave"))
	}
	for i, l := range links {
		got := l.Requests(faultlink.OpGetChildren2) - listed[i]
		if i == lowest {
			require.LessOrEqual(t, got, int64(n), "the lowest member's listings while leaving")
			continue
		}
		require.Equal(t, int64(2), got, "member %d's listings while leaving", i)
	}
	r.requireEmpty("/barrier")
}
