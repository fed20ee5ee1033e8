package integration

import (
	"context"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// elPath is the election path of the election tests (in each test's namespace).
const elPath = "/election"

// elShortSession is the session timeout of clients whose session a test
// expires by partitioning their link.
const elShortSession = 1500 * time.Millisecond

// elLatch makes a latch with id on c and starts it (its node exists when
// elLatch returns); it is closed at cleanup, before its client.
func elLatch(t testing.TB, c *client.Client, id string, opts ...election.Option) *election.Latch {
	t.Helper()
	l, err := election.NewLatch(c, elPath, append([]election.Option{election.WithID(id)}, opts...)...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, l.Start(ctx))
	t.Cleanup(func() { elClose(l) })
	return l
}

// elClose closes l within 10 s; a node left then goes with its session.
func elClose(l *election.Latch) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return l.Close(ctx)
}

// elAwait waits for l to lead, failing the test after d.
func elAwait(t testing.TB, l *election.Latch, d time.Duration) *election.Term {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	term, err := l.Await(ctx)
	require.NoError(t, err, "latch %s never led", l.ID())
	return term
}

type elAwaited struct {
	term *election.Term
	at   time.Time
	err  error
}

// elAwaitAsync runs Await on a goroutine of its own; the result carries
// the instant Await returned.
func elAwaitAsync(ctx context.Context, l *election.Latch) <-chan elAwaited {
	ch := make(chan elAwaited, 1)
	go func() {
		term, err := l.Await(ctx)
		ch <- elAwaited{term: term, at: time.Now(), err: err}
	}()
	return ch
}

// elEnded records the instant a term's context was cancelled.
type elEnded struct {
	done chan struct{}
	at   time.Time
}

func elWatchEnd(term *election.Term) *elEnded {
	e := &elEnded{done: make(chan struct{})}
	go func() {
		defer close(e.done)
		<-term.Done()
		e.at = time.Now()
	}()
	return e
}

// elLeading returns the ids of the latches that lead now.
func elLeading(ls []*election.Latch) []string {
	var ids []string
	for _, l := range ls {
		if l.Leading() {
			ids = append(ids, l.ID())
		}
	}
	return ids
}

// elNoLeaderFor requires that none of ls leads for the quiet period.
func elNoLeaderFor(t testing.TB, quiet time.Duration, ls ...*election.Latch) {
	t.Helper()
	deadline := time.Now().Add(quiet)
	for time.Now().Before(deadline) {
		require.Empty(t, elLeading(ls), "a latch leads although it should not")
		time.Sleep(pollEvery)
	}
}

// elTerms is an in-process detector of overlapping terms: enter and leave
// bracket each term; at most one may be inside at once, and each term's
// token must be greater than the one before.
type elTerms struct {
	mu      sync.Mutex
	inside  int
	max     int
	last    int64
	tokens  []int64
	ids     []string
	badToks int
}

func (d *elTerms) enter(id string, token int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inside++
	if d.inside > d.max {
		d.max = d.inside
	}
	if token <= d.last {
		d.badToks++
	}
	d.last = token
	d.tokens = append(d.tokens, token)
	d.ids = append(d.ids, id)
}

func (d *elTerms) leave() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inside--
}

func (d *elTerms) snapshot() (max, badToks int, ids []string, tokens []int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.max, d.badToks, append([]string(nil), d.ids...), append([]int64(nil), d.tokens...)
}

// elNodes lists the election path's children as c sees them.
func elNodes(t testing.TB, c *client.Client) []string {
	t.Helper()
	return children(t, c, elPath)
}

// elBase is a node path's last segment.
func elBase(p string) string { return path.Base(p) }

// elSorted lists the election path's children in queue order.
func elSorted(t testing.TB, c *client.Client) []string {
	t.Helper()
	ps, err := election.Participants(ctxT(t, 10*time.Second), c, elPath)
	require.NoError(t, err)
	var names []string
	for _, p := range ps {
		names = append(names, elBase(p.Node))
	}
	return names
}
