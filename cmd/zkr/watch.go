package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"
)

func newWatch(g *globals) *cobra.Command {
	var events bool
	eo := eventOptions{depth: -1}
	cmd := &cobra.Command{
		Use:   "watch PATH",
		Short: "Print the show view of PATH on every change, or (--events) each change of a subtree",
		Long: `watch prints the view of zkr show, then again each time the recipe's
children (or a count's value) change, until interrupted. With --json, one
compact JSON view (the fields of zkr show --json) per line.

With --events, watch runs a tree cache of PATH (recipes/cache, Curator's
CuratorCache) and prints one line per event until interrupted: time, type,
path, data version and data. The first load shows as NODE_CREATED for every
node found, then INITIALIZED once; after that NODE_CREATED, NODE_CHANGED
(data written) and NODE_DELETED as they happen. PATH need not exist yet: its
creation is an event. --depth N caches N levels below PATH (0: PATH alone;
default every level); --no-data leaves data out (stats only).

What --events costs: the cache sets a data watch on every node it holds and a
child watch on every node whose children it holds (go-zookeeper has no
persistent recursive watch), and reads each node once, then once per change.
On a large subtree narrow it with --depth, and use --no-data to keep memory
bounded.

` + eventFields,
		Example: `  zkr watch /locks/nightly
  zkr watch /licences/reports --json | jq -c '.nodes | length'
  zkr watch --events /services
  zkr watch --events --depth 1 --no-data --json /groups/workers`,
		Args: argsOrUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := args[0]
			if err := checkPath(p); err != nil {
				return err
			}
			f := cmd.Flags()
			if !events && (f.Changed("depth") || f.Changed("no-data")) {
				return usageErr("--depth and --no-data go with --events")
			}
			if eo.depth < -1 {
				return usageErr("--depth must be 0 or more (or -1: every level), got %d", eo.depth)
			}
			ctx, stop := signalContext()
			defer stop()
			c, err := g.connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			if events {
				return watchEvents(ctx, c, p, eo, cmd.OutOrStdout(), g.json)
			}
			out := cmd.OutOrStdout()
			w := newWatcher(c)
			hinted := false // the hint about --events, given once
			for ctx.Err() == nil {
				wctx, cancel := context.WithTimeout(ctx, g.timeout)
				err := w.once(wctx, p, func(v *View) {
					if v.Kind == kindNone && !hinted {
						hinted = true
						fmt.Fprintf(os.Stderr, "zkr: %s is no recipe; zkr watch --events %s prints each change below it\n", p, p)
					}
					if g.json {
						b, _ := json.Marshal(v)
						fmt.Fprintln(out, string(b))
						return
					}
					fmt.Fprintf(out, "--- %s\n", time.Now().UTC().Format(time.RFC3339))
					writeView(out, v)
				})
				cancel()
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					return opErr(p, err)
				}
				select {
				case <-ctx.Done():
				case <-w.fired:
				}
			}
			return nil
		},
	}
	addJSON(cmd, g)
	cmd.Flags().BoolVar(&events, "events", false, "print each event of a tree cache of PATH (see above)")
	cmd.Flags().IntVar(&eo.depth, "depth", -1, "with --events: levels below PATH to cache (0: PATH alone; -1: all)")
	cmd.Flags().BoolVar(&eo.noData, "no-data", false, "with --events: leave data out (stats only)")
	return cmd
}

// watcher keeps at most one watch of each kind on each node it follows, so a
// long watch does not pile up watches that never fire.
type watcher struct {
	c     clientAPI
	fired chan struct{} // a change since the last view (capacity 1)
	mu    sync.Mutex
	armed map[string]bool // "data:/p", "children:/p/leases", ...
}

func newWatcher(c clientAPI) *watcher {
	return &watcher{c: c, fired: make(chan struct{}, 1), armed: map[string]bool{}}
}

func (w *watcher) isArmed(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.armed[key]
}

// arm records a watch and signals fired once it triggers (a change, or the
// watch ending with the session or the client).
func (w *watcher) arm(key string, ch <-chan zk.Event) {
	w.mu.Lock()
	w.armed[key] = true
	w.mu.Unlock()
	go func() {
		<-ch
		w.mu.Lock()
		delete(w.armed, key)
		w.mu.Unlock()
		select {
		case w.fired <- struct{}{}:
		default:
		}
	}()
}

// once sets the watches that are not set, then reads and prints the view
// (so no change after the print is missed).
func (w *watcher) once(ctx context.Context, p string, print func(*View)) error {
	if !w.isArmed("data:" + p) {
		_, _, ch, err := w.c.ExistsW(ctx, p) // creation, data change, deletion
		if err != nil {
			return err
		}
		w.arm("data:"+p, ch)
	}
	for _, d := range []string{p, join(p, "leases"), join(p, "locks")} {
		if w.isArmed("children:" + d) {
			continue
		}
		_, _, ch, err := w.c.ChildrenW(ctx, d)
		if isNoNode(err) {
			continue
		}
		if err != nil {
			return err
		}
		w.arm("children:"+d, ch)
	}
	v, err := inspect(ctx, w.c, p)
	if isNoNode(err) {
		fmt.Fprintln(os.Stderr, "zkr: "+p+": no such node (waiting for it)")
		return nil
	}
	if err != nil {
		return err
	}
	print(v)
	return nil
}
