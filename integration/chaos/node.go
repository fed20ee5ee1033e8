package chaos

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// NodeDir is where the node workload's participants keep their nodes.
const NodeDir = "/chaos/node"

// NodeWorker is one participant of a node scenario: it keeps one ephemeral
// node (recipes/node) under NodeDir, named after it, and sets new data on
// it every 100 to 500 ms until the fault phase is over (LongUntil), the
// last of those writes quite possibly while its link is cut or its server
// down. The participants take the three ways of naming in turn: p0, p3,
// ... a plain node ("p0"); p1, p4, ... a protected one ("_c_<uuid>-p1");
// p2, p5, ... a protected sequential one ("_c_<uuid>-p2-0000000012").
//
// In the history, each acknowledged SetData is a holding of kind "set"
// that ends at once; after LongUntil the worker no longer writes but looks
// at its node through its own client every 100 to 500 ms, and each look
// that finds it settled (its path, its latest data, its live session) is
// a holding of kind "seen". So the calm phase lasts until every
// participant has seen its node settled, and a node made again with stale
// data shows as a participant stuck in the calm phase. Run closes the node
// before it returns.
type NodeWorker struct {
	Part
	N *node.Node

	mu     sync.Mutex // held through each SetData, so that Pause waits for the one under way
	paused bool
	writes int
}

// NewNodeWorker makes participant p's worker on c, its node started (made,
// within ctx and at most 30 s).
func NewNodeWorker(ctx context.Context, c *client.Client, p Part) (*NodeWorker, error) {
	name := p.Name()
	base, opts := NodeDir+"/"+name, []node.Option(nil)
	switch p.Who % 3 {
	case 1:
		opts = []node.Option{node.WithProtection()}
	case 2:
		base += "-"
		opts = []node.Option{node.WithMode(node.EphemeralSequential), node.WithProtection()}
	}
	n, err := node.New(c, base, []byte(name+" #0"), opts...)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := n.Start(sctx); err != nil {
		_ = n.Close(sctx)
		return nil, err
	}
	return &NodeWorker{Part: p, N: n}, nil
}

// Run writes (then looks, see NodeWorker) every 100 to 500 ms until ctx
// ends, noting the node's events on the timeline, then closes the node
// (on a context of its own, 10 s) and returns.
func (w *NodeWorker) Run(ctx context.Context) {
	events, cancel := w.N.Events()
	noted := make(chan struct{})
	go func() {
		defer close(noted)
		for ev := range events {
			w.Timeline.Add(w.Name(), fmt.Sprintf("node %s %s session=0x%x", ev.Type, ev.Path, uint64(ev.Session)))
		}
	}()
	defer func() {
		cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer stop()
		if err := w.N.Close(cctx); err != nil {
			w.Timeline.Add(w.Name(), "node close: "+err.Error())
		}
		cancel()
		<-noted
	}()
	for {
		if !sleep(ctx, 100*time.Millisecond+time.Duration(w.Rand().Int64N(int64(400*time.Millisecond)))) {
			return
		}
		if w.LongUntil.IsZero() || time.Now().Before(w.LongUntil) {
			w.set(ctx)
		} else {
			w.look(ctx)
		}
	}
}

// set writes the next data, unless paused, and records it.
func (w *NodeWorker) set(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paused {
		return
	}
	w.writes++
	data := fmt.Sprintf("%s #%d", w.Name(), w.writes)
	op := w.History.InvokeAs(w.Who, "set", 1)
	sctx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
	err := w.N.SetData(sctx, []byte(data))
	cancel()
	if err != nil {
		op.Failed(err)
		return
	}
	op.Granted(time.Now(), 0)
	op.Unlocking()
}

// look reads the node through the participant's own client and records
// whether it found it settled.
func (w *NodeWorker) look(ctx context.Context) {
	op := w.History.InvokeAs(w.Who, "seen", 1)
	lctx, cancel := context.WithTimeout(ctx, w.Session)
	defer cancel()
	if p := w.problem(lctx, w.Client, nil); p != "" {
		op.Failed(fmt.Errorf("not settled: %s", p))
		return
	}
	op.Granted(time.Now(), 0)
	op.Unlocking()
}

// Pause stops the writes; it returns once the one under way has returned.
func (w *NodeWorker) Pause() {
	w.mu.Lock()
	w.paused = true
	w.mu.Unlock()
}

// owns reports whether the child name of NodeDir is this participant's:
// its name, after the protected prefix if any, is the participant's or
// starts with it and "-".
func (w *NodeWorker) owns(name string) bool {
	if strings.HasPrefix(name, client.ProtectedPrefix) && len(name) > len(client.ProtectedPrefix)+37 {
		name = name[len(client.ProtectedPrefix)+37:] // "_c_" + UUID + "-"
	}
	return name == w.Name() || strings.HasPrefix(name, w.Name()+"-")
}

// problem is what is wrong with w's node as c sees it: "" when it is at
// w.N.Path(), owned by w's client's live session, holding w.N.Data(), and
// (unless kids is nil) it is the only one of NodeDir's children kids that
// is w's.
func (w *NodeWorker) problem(ctx context.Context, c *client.Client, kids []string) string {
	p := w.N.Path()
	if kids != nil {
		var mine []string
		for _, k := range kids {
			if w.owns(k) {
				mine = append(mine, k)
			}
		}
		if len(mine) != 1 || p == "" || path.Join(NodeDir, mine[0]) != p {
			return fmt.Sprintf("nodes %v under %s, want exactly its node %q", mine, NodeDir, p)
		}
	}
	if p == "" {
		return "no node made yet"
	}
	sess := w.Client.Session()
	if sess == nil || sess.Err() != nil {
		return "its client has no live session"
	}
	data, st, err := c.Get(ctx, p)
	switch {
	case err != nil:
		return fmt.Sprintf("read %s: %v", p, err)
	case st.EphemeralOwner != sess.ID():
		return fmt.Sprintf("%s is owned by session 0x%x, not by its client's live session 0x%x", p, uint64(st.EphemeralOwner), uint64(sess.ID()))
	case string(data) != string(w.N.Data()):
		return fmt.Sprintf("%s holds %q, want its latest data %q", p, data, w.N.Data())
	}
	return ""
}

// nodeRun is one node scenario's workers, for its Settle check.
type nodeRun struct {
	mu      sync.Mutex
	workers []*NodeWorker
}

// settleWithin bounds how long the Settle check waits for the nodes to
// settle once the writes are paused (a node whose session was just lost is
// being made again).
const settleWithin = 20 * time.Second

// settle pauses every worker's writes (they stopped at the end of the
// fault phase already), then waits until every participant has exactly
// one node, owned by its live session, with its latest data, and no other
// node is under NodeDir; it returns what is still wrong after
// settleWithin.
func (r *nodeRun) settle(ctx context.Context, checker *client.Client) []Unsettled {
	r.mu.Lock()
	workers := append([]*NodeWorker(nil), r.workers...)
	r.mu.Unlock()
	for _, w := range workers {
		w.Pause()
	}
	deadline := time.Now().Add(settleWithin)
	for {
		problems := r.check(ctx, checker, workers)
		if len(problems) == 0 || time.Now().After(deadline) || !sleep(ctx, 200*time.Millisecond) {
			return problems
		}
	}
}

// check is one look at NodeDir for settle.
func (r *nodeRun) check(ctx context.Context, checker *client.Client, workers []*NodeWorker) []Unsettled {
	kids, _, err := checker.Children(ctx, NodeDir)
	if err != nil {
		return []Unsettled{{Problem: fmt.Sprintf("list %s: %v", NodeDir, err)}}
	}
	if kids == nil {
		kids = []string{} // nil would skip the count in problem
	}
	var out []Unsettled
	for _, w := range workers {
		if p := w.problem(ctx, checker, kids); p != "" {
			out = append(out, Unsettled{Who: w.Name(), Problem: p})
		}
	}
	for _, k := range kids {
		owned := false
		for _, w := range workers {
			owned = owned || w.owns(k)
		}
		if !owned {
			out = append(out, Unsettled{Problem: fmt.Sprintf("node %s/%s belongs to no participant", NodeDir, k)})
		}
	}
	return out
}

func init() {
	register(Workload{
		Recipe: "node",
		Fresh: func() Workload {
			run := &nodeRun{}
			return Workload{
				Recipe:   "node",
				Capacity: Capacity{Units: MaxParts}, // a write holds nothing: no grant can overlap
				Dirs:     []string{NodeDir},
				Start: func(ctx context.Context, c *client.Client, p Part) (func(context.Context), error) {
					w, err := NewNodeWorker(ctx, c, p)
					if err != nil {
						return nil, err
					}
					run.mu.Lock()
					run.workers = append(run.workers, w)
					run.mu.Unlock()
					return w.Run, nil
				},
				Settle: run.settle,
			}
		},
	})
}
