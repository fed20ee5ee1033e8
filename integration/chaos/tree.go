package chaos

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// The tools of the cache's checks, shared by the cache workload and the
// cache's own tests (integration/cacheit): a subtree as the server has it,
// the same subtree rebuilt from a cache's events, and their differences.

// TreeNode is one node of a subtree: its data and the zxids that tell one
// write (Mzxid) and one incarnation (Czxid) from another.
type TreeNode struct {
	Data         string
	Czxid, Mzxid int64
}

// Tree is a subtree by path (relative to the client's namespace).
type Tree map[string]TreeNode

// ReadTree reads the subtree at root with c, one node after another: a
// true picture only while nobody writes under root. A missing root is an
// empty tree; so is a node deleted while it is read (the walk skips it).
func ReadTree(ctx context.Context, c *client.Client, root string) (Tree, error) {
	t := Tree{}
	var walk func(p string) error
	walk = func(p string) error {
		data, st, err := c.Get(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		t[p] = TreeNode{Data: string(data), Czxid: st.Czxid, Mzxid: st.Mzxid}
		kids, _, err := c.Children(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", p, err)
		}
		slices.Sort(kids)
		for _, k := range kids {
			if err := walk(join(p, k)); err != nil {
				return err
			}
		}
		return nil
	}
	return t, walk(root)
}

// NodesTree is a cache's view (Cache.Nodes) as a Tree.
func NodesTree(nodes []cache.Node) Tree {
	t := make(Tree, len(nodes))
	for _, n := range nodes {
		t[n.Path] = TreeNode{Data: string(n.Data), Czxid: n.Stat.Czxid, Mzxid: n.Stat.Mzxid}
	}
	return t
}

// Diff lists how got differs from want, sorted by path, at most max lines
// (and a count of the rest); nil when they are equal.
func Diff(want, got Tree, max int) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[p]
		switch w := want[p]; {
		case !ok:
			out = append(out, fmt.Sprintf("missing %s (%q czxid=%d mzxid=%d)", p, w.Data, w.Czxid, w.Mzxid))
		case g != w:
			out = append(out, fmt.Sprintf("stale %s: %q czxid=%d mzxid=%d, want %q czxid=%d mzxid=%d",
				p, g.Data, g.Czxid, g.Mzxid, w.Data, w.Czxid, w.Mzxid))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("extra %s (%q czxid=%d)", p, got[p].Data, got[p].Czxid))
		}
	}
	if max > 0 && len(out) > max {
		out = append(out[:max], fmt.Sprintf("... and %d more", len(out)-max))
	}
	return out
}

// Replay rebuilds a cache's view from its events, from empty, and notes
// every event that does not fit the ones before it: a Created for a node
// it has, or whose parent it lacks; a Changed or Deleted for a node it
// lacks, or whose Old is not what it has; a Deleted of a node whose
// children it still has; a second Initialized; an event with no path
// under the cache's root. It is not safe for concurrent use.
type Replay struct {
	root        string
	nodes       map[string]cache.Node
	initialized int
	events      int
	problems    []string
}

// NewReplay returns an empty replay of the events of a cache on root.
func NewReplay(root string) *Replay {
	return &Replay{root: root, nodes: map[string]cache.Node{}}
}

// Apply applies one event.
func (r *Replay) Apply(ev cache.Event) {
	r.events++
	p := ev.Node.Path
	bad := func(format string, args ...any) {
		r.problems = append(r.problems, fmt.Sprintf("event %d (%s %s): ", r.events, ev.Type, p)+fmt.Sprintf(format, args...))
	}
	if ev.Type != cache.Initialized && !under(r.root, p) {
		bad("not under the cache's root %s", r.root)
		return
	}
	old, have := r.nodes[p]
	switch ev.Type {
	case cache.Initialized:
		r.initialized++
		if r.initialized > 1 {
			bad("Initialized again")
		}
	case cache.Created:
		if have {
			bad("created, but it is there already")
		}
		if parent := path.Dir(p); p != r.root {
			if _, ok := r.nodes[parent]; !ok {
				bad("created before its parent %s", parent)
			}
		}
		r.nodes[p] = ev.Node
	case cache.Changed:
		switch {
		case !have:
			bad("changed, but it is not there")
		case string(ev.Old.Data) != string(old.Data) || ev.Old.Stat.Mzxid != old.Stat.Mzxid || ev.Old.Stat.Czxid != old.Stat.Czxid:
			bad("Old is %q mzxid=%d, but the events gave %q mzxid=%d", ev.Old.Data, ev.Old.Stat.Mzxid, old.Data, old.Stat.Mzxid)
		case ev.Old.Stat.Mzxid == ev.Node.Stat.Mzxid && ev.Old.Stat.Czxid == ev.Node.Stat.Czxid:
			bad("changed, but its zxids did not move")
		}
		r.nodes[p] = ev.Node
	case cache.Deleted:
		switch {
		case !have:
			bad("deleted, but it is not there")
		case string(ev.Node.Data) != string(old.Data) || ev.Node.Stat.Mzxid != old.Stat.Mzxid:
			bad("deleted as %q mzxid=%d, but the events gave %q mzxid=%d", ev.Node.Data, ev.Node.Stat.Mzxid, old.Data, old.Stat.Mzxid)
		}
		for q := range r.nodes {
			if under(p, q) && q != p {
				bad("deleted before its child %s", q)
				break
			}
		}
		delete(r.nodes, p)
	default:
		bad("unknown type")
	}
}

// Tree is the view the events gave so far.
func (r *Replay) Tree() Tree {
	t := make(Tree, len(r.nodes))
	for p, n := range r.nodes {
		t[p] = TreeNode{Data: string(n.Data), Czxid: n.Stat.Czxid, Mzxid: n.Stat.Mzxid}
	}
	return t
}

// Events is how many events were applied.
func (r *Replay) Events() int { return r.events }

// Initialized is how many Initialized events came (1 once the first load
// is done).
func (r *Replay) Initialized() int { return r.initialized }

// Problems are the events that did not fit, in order.
func (r *Replay) Problems() []string { return slices.Clone(r.problems) }

// under reports whether p is root or below it.
func under(root, p string) bool {
	switch {
	case p == root:
		return true
	case root == "/":
		return strings.HasPrefix(p, "/")
	default:
		return strings.HasPrefix(p, root+"/")
	}
}

// join is path.Join for a ZooKeeper parent and a child's name.
func join(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}
