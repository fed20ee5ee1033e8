package chaos

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TreeWriter changes a subtree at random, as a cache's test needs it
// changed: it creates nodes on several levels (making their parents),
// writes their data, deletes whole subtrees, deletes and at once re-creates
// them, and (with Churn) does the same to its root. Every write carries
// data never written before (Tag and a sequence number), so a stale view
// shows. Errors (a fault on the writer's own link) are counted and
// otherwise ignored: whoever checks reads the server afterwards. A
// TreeWriter is used from one goroutine.
type TreeWriter struct {
	C     *client.Client
	Root  string     // the subtree it writes under; made when missing
	Rand  *rand.Rand // its choices
	Tag   string     // prefix of the data it writes
	Width int        // names per level (default 3)
	Depth int        // levels below Root (default 3)
	// Ephemeral makes about a third of the deepest nodes ephemeral, so
	// that they go with the writer's session.
	Ephemeral bool
	// Churn lets a step delete Root with everything below it, and make it
	// again.
	Churn bool

	seq    int
	counts map[string]int
}

// Step makes one random change. It returns ctx's error once ctx ends, and
// nil otherwise, whatever the server answered.
func (w *TreeWriter) Step(ctx context.Context) error {
	if w.counts == nil {
		w.counts = map[string]int{}
	}
	p := w.randomPath()
	switch x := w.Rand.IntN(100); {
	case x < 45:
		w.op(ctx, "put", w.put(ctx, p, w.leafFlags(p)))
	case x < 62:
		w.op(ctx, "set", w.set(ctx, p))
	case x < 78:
		w.op(ctx, "delete", w.deleteTree(ctx, p))
	case x < 99:
		err := w.deleteTree(ctx, p)
		if err == nil {
			err = w.put(ctx, p, w.leafFlags(p))
		}
		w.op(ctx, "recreate", err)
	case w.Churn:
		err := w.deleteTree(ctx, w.Root)
		if err == nil {
			err = w.put(ctx, w.Root, 0)
		}
		w.op(ctx, "churn-root", err)
	default:
		w.op(ctx, "put", w.put(ctx, p, w.leafFlags(p)))
	}
	return ctx.Err()
}

// Counts returns how many steps of each kind ran, and (as "failed") how
// many got an error other than the context's.
func (w *TreeWriter) Counts() map[string]int {
	out := make(map[string]int, len(w.counts))
	for k, n := range w.counts {
		out[k] = n
	}
	return out
}

func (w *TreeWriter) op(ctx context.Context, kind string, err error) {
	w.counts[kind]++
	if err != nil && ctx.Err() == nil {
		w.counts["failed"]++
	}
}

// width and depth are Width and Depth, or their defaults.
func (w *TreeWriter) width() int { return orDefault(w.Width, 3) }
func (w *TreeWriter) depth() int { return orDefault(w.Depth, 3) }

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// randomPath draws a node 1 to Depth levels below Root: Root/n1/n0/n2...
func (w *TreeWriter) randomPath() string {
	levels := 1 + w.Rand.IntN(w.depth())
	p := w.Root
	for range levels {
		p = join(p, "n"+strconv.Itoa(w.Rand.IntN(w.width())))
	}
	return p
}

// leafFlags draws the flags of a node to create at p: ephemeral for some of
// the deepest (which never get children).
func (w *TreeWriter) leafFlags(p string) int32 {
	if w.Ephemeral && strings.Count(strings.TrimPrefix(p, w.Root), "/") == w.depth() && w.Rand.IntN(3) == 0 {
		return zk.FlagEphemeral
	}
	return 0
}

// data is the next value never written before.
func (w *TreeWriter) data() []byte {
	w.seq++
	return []byte(w.Tag + strconv.Itoa(w.seq))
}

// set writes p's data if p exists.
func (w *TreeWriter) set(ctx context.Context, p string) error {
	_, err := w.C.Set(ctx, p, w.data(), -1)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// put writes p's data, creating p (with flags) and its missing parents
// (persistent, with data of their own) when it is not there.
func (w *TreeWriter) put(ctx context.Context, p string, flags int32) error {
	_, err := w.C.Set(ctx, p, w.data(), -1)
	if !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	if p != w.Root {
		for _, a := range ancestors(w.Root, p) {
			if _, err := w.create(ctx, a, 0); err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return err
			}
		}
	}
	_, err = w.create(ctx, p, flags)
	if errors.Is(err, zk.ErrNodeExists) {
		_, err = w.C.Set(ctx, p, w.data(), -1)
	}
	return err
}

// create makes p with fresh data; Root's missing ancestors, above the
// writer's subtree, are made as containers (Create with WithParents).
func (w *TreeWriter) create(ctx context.Context, p string, flags int32) (string, error) {
	if p == w.Root {
		return w.C.Create(ctx, p, w.data(), flags, client.WithParents())
	}
	return w.C.Create(ctx, p, w.data(), flags)
}

// ancestors lists the nodes from root down to p's parent.
func ancestors(root, p string) []string {
	out := []string{root}
	rest := strings.Split(strings.TrimPrefix(p, root+"/"), "/")
	cur := root
	for _, name := range rest[:len(rest)-1] {
		cur = join(cur, name)
		out = append(out, cur)
	}
	return out
}

// deleteTree deletes p and everything below it.
func (w *TreeWriter) deleteTree(ctx context.Context, p string) error {
	for range 3 { // a child made meanwhile (by a create still in flight): again
		kids, _, err := w.C.Children(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := w.deleteTree(ctx, join(p, k)); err != nil {
				return err
			}
		}
		err = w.C.Delete(ctx, p, -1)
		if !errors.Is(err, zk.ErrNotEmpty) {
			if errors.Is(err, zk.ErrNoNode) {
				return nil
			}
			return err
		}
	}
	return zk.ErrNotEmpty
}

// DeleteTree deletes root and everything below it with c (nil when it is
// not there).
func DeleteTree(ctx context.Context, c *client.Client, root string) error {
	w := &TreeWriter{C: c, Root: root}
	return w.deleteTree(ctx, root)
}
