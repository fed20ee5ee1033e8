package integration

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// elCalls records one latch's listener calls.
type elCalls struct {
	mu      sync.Mutex
	leads   []*election.Term
	nots    []*election.Term
	badNote []string // calls out of order, or notLeader on a live term
}

func (c *elCalls) counts() (leads, nots int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.leads), len(c.nots)
}

// TestLatchCallbackNotifyLeader ports Curator's testCallbackNotifyLeader:
// ten latches on one client, three closed silently (CloseSilent, the
// default) and seven notifying (CloseNotifyLeader). Each listener, the
// first time it is told it leads, steps down (Term.Interrupt: Curator's
// reset); the second time it closes its latch from within the call. Every
// latch leads exactly twice; notLeader is called once per term, except for
// the term a silent Close ends: 2*10-3 calls. Each call comes after its
// isLeader and after the term's context was cancelled, and Close cancels
// the closed term's context in both modes (cause ErrClosed).
func TestLatchCallbackNotifyLeader(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	c := connect(t, clientOpts{ns: ns})
	const n, silent = 10, 3
	calls := make([]*elCalls, n)
	closed := make(chan int, n)
	var latches []*election.Latch
	for i := 0; i < n; i++ {
		mode := election.CloseNotifyLeader
		if i < silent {
			mode = election.CloseSilent
		}
		rec := &elCalls{}
		calls[i] = rec
		var l *election.Latch
		isLeader := func(term *election.Term) {
			rec.mu.Lock()
			rec.leads = append(rec.leads, term)
			first := len(rec.leads) == 1
			rec.mu.Unlock()
			if first {
				term.Interrupt()
				return
			}
			if err := l.Close(ctx); err != nil {
				t.Errorf("latch %d: Close: %v", i, err)
			}
			closed <- i
		}
		notLeader := func(term *election.Term) {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			rec.nots = append(rec.nots, term)
			k := len(rec.nots) - 1
			switch {
			case k >= len(rec.leads) || rec.leads[k] != term:
				rec.badNote = append(rec.badNote, fmt.Sprintf("notLeader %d without its isLeader", k))
			case term.Err() == nil:
				rec.badNote = append(rec.badNote, fmt.Sprintf("notLeader %d on a live term", k))
			}
		}
		var err error
		l, err = election.NewLatch(c, elPath, election.WithID(fmt.Sprint(i)),
			election.WithCloseMode(mode), election.WithListener(isLeader, notLeader))
		require.NoError(t, err)
		latches = append(latches, l)
		t.Cleanup(func() { elClose(l) })
	}
	for _, l := range latches {
		require.NoError(t, l.Start(ctx))
	}
	for range latches {
		await(t, closed, 30*time.Second, "a latch's second term")
	}
	// Close made its notLeader call, if any, before it returned; the
	// latch's goroutine makes it just after. Wait for the seven, then make
	// sure no more come (a silent close that notifies fails here).
	require.Eventually(t, func() bool {
		for i := silent; i < n; i++ {
			if _, nots := calls[i].counts(); nots < 2 {
				return false
			}
		}
		return true
	}, 10*time.Second, pollEvery, "the notifying latches' notLeader for the closed term")
	time.Sleep(300 * time.Millisecond)
	total := 0
	for i, rec := range calls {
		rec.mu.Lock()
		leads, nots, bad := rec.leads, rec.nots, rec.badNote
		rec.mu.Unlock()
		require.Empty(t, bad, "latch %d", i)
		require.Len(t, leads, 2, "latch %d: isLeader calls", i)
		want := 2
		if i < silent {
			want = 1
		}
		require.Len(t, nots, want, "latch %d: notLeader calls", i)
		total += len(nots)
		require.ErrorIs(t, leads[0].Err(), election.ErrInterrupted, "latch %d: first term", i)
		require.ErrorIs(t, leads[1].Err(), zkrecipes.ErrClosed, "latch %d: the closed term's context, whatever the mode", i)
		require.Greater(t, leads[1].Token(), leads[0].Token())
		require.False(t, latches[i].Leading())
	}
	require.Equal(t, 2*n-silent, total)
	require.Empty(t, elNodes(t, c))
}
