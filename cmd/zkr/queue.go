package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// QueueItem is an item node as zkr queue shows it. Its JSON field names are
// stable.
type QueueItem struct {
	Name       string    `json:"name"`
	Created    time.Time `json:"created"`
	AgeSeconds float64   `json:"age_seconds"`
	// What the name says (id queue, priority queue, delay queue).
	ID       string     `json:"id,omitempty"`
	Priority *int32     `json:"priority,omitempty"`
	Due      *time.Time `json:"due,omitempty"`
}

// QueueNode is a lock or consumer node. Its JSON field names are stable.
type QueueNode struct {
	Name       string    `json:"name"`
	Session    string    `json:"session"`
	Created    time.Time `json:"created"`
	AgeSeconds float64   `json:"age_seconds"`
	Data       string    `json:"data"`
}

// QueueView is what zkr queue prints. Its JSON field names are stable.
type QueueView struct {
	Path         string      `json:"path"`
	Kind         string      `json:"kind"`
	LockPath     string      `json:"lock_path,omitempty"`
	ConsumerPath string      `json:"consumer_path"`
	Items        int         `json:"items"`
	Oldest       *QueueItem  `json:"oldest"`
	Next         *QueueItem  `json:"next"`
	Held         []QueueNode `json:"held"`
	Consumers    []QueueNode `json:"consumers"`
	Idle         int         `json:"idle"`
	Foreign      []string    `json:"foreign"`
}

const queueFields = `JSON fields (stable): path, kind, lock_path, consumer_path, items, oldest and
next (null when empty; each: name, created, age_seconds, and id, priority or
due for those kinds), held[] (lock nodes: name, session, created, age_seconds,
data), consumers[] (the same fields), idle, foreign[].`

// queueKinds are --kind's values.
var queueKinds = []string{"queue", "id", "priority", "delay", "simple"}

// queueInfo takes one look at the queue of kind at p.
func queueInfo(ctx context.Context, c *client.Client, kind, p string, opts []queue.Option) (*queue.Info, error) {
	switch kind {
	case "id":
		q, err := queue.NewID(c, p, opts...)
		if err != nil {
			return nil, err
		}
		return q.Info(ctx)
	case "priority":
		q, err := queue.NewPriority(c, p, opts...)
		if err != nil {
			return nil, err
		}
		return q.Info(ctx)
	case "delay":
		q, err := queue.NewDelay(c, p, opts...)
		if err != nil {
			return nil, err
		}
		return q.Info(ctx)
	case "simple":
		q, err := queue.NewSimple(c, p, opts...)
		if err != nil {
			return nil, err
		}
		return q.Info(ctx)
	}
	q, err := queue.New(c, p, opts...)
	if err != nil {
		return nil, err
	}
	return q.Info(ctx)
}

// queueViewOf turns an Info into the view; now is for the ages.
func queueViewOf(p, kind, lockPath, consumerPath string, in *queue.Info, now time.Time) *QueueView {
	v := &QueueView{Path: p, Kind: kind, LockPath: lockPath, ConsumerPath: consumerPath, Items: in.Items,
		Held: []QueueNode{}, Consumers: []QueueNode{}, Idle: in.Idle, Foreign: append([]string{}, in.Foreign...)}
	item := func(n *queue.NodeInfo) *QueueItem {
		if n == nil {
			return nil
		}
		it := &QueueItem{Name: n.Name, Created: n.Created.UTC(), AgeSeconds: roundSeconds(now.Sub(n.Created)), ID: n.ID}
		switch kind {
		case "priority":
			p := n.Priority
			it.Priority = &p
		case "delay":
			if !n.Due.IsZero() {
				d := n.Due.UTC()
				it.Due = &d
			}
		}
		return it
	}
	v.Oldest, v.Next = item(in.Oldest), item(in.Next)
	nodes := func(ns []queue.NodeInfo) []QueueNode {
		out := []QueueNode{}
		for _, n := range ns {
			out = append(out, QueueNode{Name: n.Name, Session: sessionHex(n.Session), Created: n.Created.UTC(),
				AgeSeconds: roundSeconds(now.Sub(n.Created)), Data: decodeData(n.Data)})
		}
		return out
	}
	v.Held, v.Consumers = nodes(in.Held), nodes(in.Consumers)
	return v
}

// writeQueue prints the view as text.
func writeQueue(w io.Writer, v *QueueView, now time.Time) {
	lock := ""
	if v.LockPath != "" {
		lock = "  lock path " + v.LockPath
	}
	fmt.Fprintf(w, "%s  %s  %d %s%s\n", v.Path, v.Kind, v.Items, plural(v.Items, "item", "items"), lock)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range []struct {
		what string
		it   *QueueItem
	}{{"oldest", v.Oldest}, {"next", v.Next}} {
		if r.it == nil {
			continue
		}
		extra := ""
		switch {
		case r.it.ID != "":
			extra = "id " + r.it.ID
		case r.it.Priority != nil:
			extra = fmt.Sprintf("priority %d", *r.it.Priority)
		case r.it.Due != nil && r.it.Due.After(now):
			extra = "due in " + formatAge(r.it.Due.Sub(now))
		case r.it.Due != nil:
			extra = "due since " + formatAge(now.Sub(*r.it.Due))
		}
		age := formatAge(time.Duration(r.it.AgeSeconds * float64(time.Second)))
		if extra == "" {
			fmt.Fprintf(tw, "%s\t%s\tage %s\n", r.what, r.it.Name, age)
		} else {
			fmt.Fprintf(tw, "%s\t%s\tage %s\t%s\n", r.what, r.it.Name, age, extra)
		}
	}
	_ = tw.Flush()
	table := func(title string, ns []QueueNode) {
		fmt.Fprintln(w, title)
		if len(ns) == 0 {
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NODE\tSESSION\tAGE\tDATA")
		for _, n := range ns {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", n.Name, n.Session, formatAge(time.Duration(n.AgeSeconds*float64(time.Second))), shortData(n.Data, len(n.Data)))
		}
		_ = tw.Flush()
	}
	if v.LockPath != "" {
		table(fmt.Sprintf("held: %d %s", len(v.Held), plural(len(v.Held), "item", "items")), v.Held)
	}
	table(fmt.Sprintf("consumers: %d (%d idle) under %s", len(v.Consumers), v.Idle, v.ConsumerPath), v.Consumers)
	if len(v.Foreign) > 0 {
		fmt.Fprintf(w, "foreign: %d %s %v\n", len(v.Foreign), plural(len(v.Foreign), "node", "nodes"), v.Foreign)
	}
}

func newQueueCmd(g *globals) *cobra.Command {
	var kind, lockPath, consumerPath string
	cmd := &cobra.Command{
		Use:   "queue PATH",
		Short: "Show a distributed queue (recipes/queue, Curator's DistributedQueue and kin)",
		Long: `queue prints the queue at PATH: how many items it holds, its oldest item and
the next one consumers take (with its age, and its id, priority or due time
for those kinds), the items consumers hold now (--lock-path: the lock nodes
of a lock-safe queue, Java consumers' too), and the Go consumers running
(recipes/queue registers each Consume under --consumer-path, by default
PATH-consumers; Java consumers leave no trace but their locks). The layout
is Curator's, so Java queues show too. A queue's node is a container, reaped
once empty: a missing PATH is an empty queue (exit 0).

` + queueFields,
		Example: `  zkr queue /jobs --lock-path /jobs-locks
  zkr queue /mail --kind delay --json | jq .next.due`,
		Args: argsOrUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := args[0]
			if err := checkPath(p); err != nil {
				return err
			}
			valid := false
			for _, k := range queueKinds {
				valid = valid || k == kind
			}
			if !valid {
				return usageErr("bad --kind %q: want one of %v", kind, queueKinds)
			}
			var opts []queue.Option
			if lockPath != "" {
				if err := checkPath(lockPath); err != nil {
					return err
				}
				opts = append(opts, queue.WithLockPath(lockPath))
			}
			if consumerPath == "" {
				consumerPath = p + "-consumers"
			}
			if err := checkPath(consumerPath); err != nil {
				return err
			}
			opts = append(opts, queue.WithConsumerPath(consumerPath))
			return g.with(func(ctx context.Context, c clientAPI) error {
				in, err := queueInfo(ctx, c, kind, p, opts)
				if err != nil {
					return opErr(p, err)
				}
				now := time.Now()
				v := queueViewOf(p, kind, lockPath, consumerPath, in, now)
				if g.json {
					return writeJSON(cmd.OutOrStdout(), v)
				}
				writeQueue(cmd.OutOrStdout(), v, now)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "queue", "the queue's kind: queue, id, priority, delay or simple (how its names sort)")
	cmd.Flags().StringVar(&lockPath, "lock-path", "", "the queue's lock path (Curator's lockPath), to show the items held")
	cmd.Flags().StringVar(&consumerPath, "consumer-path", "", "where Go consumers register (default PATH-consumers)")
	addJSON(cmd, g)
	return cmd
}
