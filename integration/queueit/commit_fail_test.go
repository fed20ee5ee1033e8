package queueit

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// warnings is a slog.Handler that keeps the records at Warn and above,
// each with its attributes (those given to WithAttrs too) as strings.
type warnings struct {
	mu    *sync.Mutex
	recs  *[]warning
	attrs []slog.Attr
}

// warning is one record kept by warnings.
type warning struct {
	msg   string
	attrs map[string]string
}

func newWarnings() *warnings { return &warnings{mu: &sync.Mutex{}, recs: &[]warning{}} }

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	rec := warning{msg: r.Message, attrs: map[string]string{}}
	for _, a := range w.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	w.mu.Lock()
	*w.recs = append(*w.recs, rec)
	w.mu.Unlock()
	return nil
}

func (w *warnings) WithAttrs(as []slog.Attr) slog.Handler {
	cp := *w
	cp.attrs = append(slices.Clone(w.attrs), as...)
	return &cp
}

func (w *warnings) WithGroup(string) slog.Handler { return w }

// about returns the records of the queue recipe whose node attribute is one
// of nodes.
func (w *warnings) about(nodes []string) []warning {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []warning
	for _, r := range *w.recs {
		if r.attrs["recipe"] == "queue" && slices.Contains(nodes, r.attrs["node"]) {
			out = append(out, r)
		}
	}
	return out
}

// calls records the item nodes a handler was given, in order.
type calls struct {
	mu    sync.Mutex
	nodes []string
	first chan struct{} // closed at the first call
	once  sync.Once
}

func newCalls() *calls { return &calls{first: make(chan struct{})} }

func (c *calls) add(node string) {
	c.mu.Lock()
	c.nodes = append(c.nodes, node)
	c.mu.Unlock()
	c.once.Do(func() { close(c.first) })
}

func (c *calls) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.nodes)
}

// window is how long the tests count a failing item's handler calls, from
// the first. With the default backoff (100 ms, doubling) the item is handed
// over at about 0, 0.1, 0.3, 0.7 and 1.5 s: five calls, where the queue
// without backoff made hundreds.
const window = 2 * time.Second

// countWindow waits for the first call, then for window, and returns the
// calls made meanwhile.
func (c *calls) countWindow(t *testing.T) []string {
	t.Helper()
	select {
	case <-c.first:
	case <-time.After(20 * time.Second):
		require.FailNow(t, "the handler was never called")
	}
	time.Sleep(window)
	return c.all()
}

// TestCommitRefusedBacksOff: a lock-safe consumer whose handler's
// CommitWith can never commit (a create under a missing parent; a mutex's
// owner check made after its Unlock) gets the item again and again, as a
// Curator user expects of Requeue, but each requeue of the item waits
// longer: a few calls in two seconds, not hundreds. Each failed attempt is
// logged at Warn with the item's node and the failing op, by the user's
// index (op 0) and path, and told in a Requeued event that names them the
// same way; by default the item is requeued for ever.
func TestCommitRefusedBacksOff(t *testing.T) {
	cases := map[string]struct {
		path    string // the path the failing op names (a prefix of it)
		handler func(c clientT) queue.Handler
	}{
		"missing parent": {
			path: "/done/x",
			handler: func(clientT) queue.Handler {
				return func(_ context.Context, it *queue.Item) error {
					return it.CommitWith(&zk.CreateRequest{Path: "/done/" + string(it.Data)})
				}
			},
		},
		"owner check after unlock": {
			path: "/m/",
			handler: func(c clientT) queue.Handler {
				m, err := mutex.New(c, "/m")
				if err != nil {
					panic(err)
				}
				return func(ctx context.Context, it *queue.Item) error {
					if err := m.Lock(ctx); err != nil {
						return err
					}
					defer func() { _ = m.Unlock(context.WithoutCancel(ctx)) }()
					check, err := m.OwnerCheck()
					if err != nil {
						return err
					}
					return it.CommitWith(check)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			itest.NoLeaks(t)
			warn := newWarnings()
			c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t), Extra: []client.Option{client.WithLogger(slog.New(warn))}})
			ctx := itest.Ctx(t, time.Minute)
			q := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
			events, stop := q.Events()
			defer stop()
			got := newCalls()
			h := tc.handler(c)
			consumingLoop(t, q.Consume, func(ctx context.Context, it *queue.Item) error {
				got.add(it.Node)
				return h(ctx, it)
			})
			require.NoError(t, q.Put(ctx, []byte("x")))

			n := len(got.countWindow(t))
			t.Logf("%d handler calls in %v", n, window)
			assert.GreaterOrEqual(t, n, 3, "the item is handed over again, after a backoff")
			assert.LessOrEqual(t, n, 8, "the requeues of a failing item back off")

			ev := itest.Await(t, events, 10*time.Second, "the first requeue's event")
			require.Equal(t, queue.Requeued, ev.Type, "%v", ev)
			assert.ErrorIs(t, ev.Err, zk.ErrNoNode)
			assert.Contains(t, ev.Err.Error(), "op 0", "the event names the user's op, not the queue's: %v", ev.Err)
			assert.Contains(t, ev.Err.Error(), tc.path, "the event names the op's path: %v", ev.Err)

			warned := warn.about(got.all())
			assert.GreaterOrEqual(t, len(warned), 2, "each failed attempt is logged at Warn, with the item's node")
			for _, w := range warned[:min(2, len(warned))] {
				assert.Contains(t, w.attrs["err"], "op 0", "%+v", w)
				assert.Contains(t, w.attrs["err"], tc.path, "%+v", w)
			}

			// Requeue is Curator's default and stays so: the item is
			// handed over again and again, never given up.
			itest.Eventually(t, 20*time.Second, "a sixth call", func() bool { return len(got.all()) >= 6 })
			for {
				select {
				case ev := <-events:
					require.Equal(t, queue.Requeued, ev.Type, "only requeues by default: %v", ev)
					continue
				default:
				}
				break
			}
			n, err := q.Len(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, n, "the item is still in the queue")
		})
	}
}

// TestLostItemIsErrLost: an item whose lock is deleted under its handler
// (here by another client) cannot be removed: the CommitLost event's error
// matches both queue.ErrLost and zkrecipes.ErrLost, the sentinel every
// lost holding of the module wraps.
func TestLostItemIsErrLost(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := connect(t, shared, ns)
	other := connect(t, shared, ns)
	ctx := itest.Ctx(t, time.Minute)
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
	events, stop := q.Events()
	defer stop()
	holding := make(chan string, 1)
	proceed := make(chan struct{})
	var n atomic.Int32
	consumingLoop(t, q.Consume, func(ctx context.Context, it *queue.Item) error {
		if n.Add(1) == 1 {
			holding <- it.Node
			select {
			case <-proceed:
			case <-ctx.Done():
			}
		}
		return nil
	})
	require.NoError(t, q.Put(ctx, []byte("x")))
	node := itest.Await(t, holding, 20*time.Second, "the handler holding the item")
	require.NoError(t, other.Delete(ctx, "/locks/"+node, -1))
	close(proceed)
	ev := itest.Await(t, events, 20*time.Second, "the lost commit's event")
	require.Equal(t, queue.CommitLost, ev.Type, "%v", ev)
	require.ErrorIs(t, ev.Err, queue.ErrLost)
	require.ErrorIs(t, ev.Err, zkrecipes.ErrLost, "a lost item is a lost holding: %v", ev.Err)
	require.True(t, errors.Is(queue.ErrLost, zkrecipes.ErrLost))
	require.False(t, strings.Contains(queue.ErrLost.Error(), zkrecipes.ErrLost.Error()), "its own message: %q", queue.ErrLost)
	itest.Eventually(t, 20*time.Second, "the item handed over again and removed", func() bool {
		l, err := q.Len(ctx)
		return err == nil && l == 0 && n.Load() >= 2
	})
}
