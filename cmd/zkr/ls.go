package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// maxWalk bounds how many nodes ls and doctor visit.
const maxWalk = 100000

// Entry is one recipe found by ls. Its JSON field names are stable.
type Entry struct {
	// Kind: mutex, rwlock, semaphore or latch.
	Kind string `json:"kind"`
	// Path is the recipe's path.
	Path string `json:"path"`
	// Holders are the data of the holders (the leader of a latch, the lease
	// holders of a semaphore), in queue order.
	Holders []string `json:"holders"`
	// Waiters counts the contenders that wait (a semaphore: its queued
	// acquirers and leases beyond the limit).
	Waiters int `json:"waiters"`
	// Leases and Limit are a semaphore's leases held and the limit written
	// on its node (absent when none is written).
	Leases *int `json:"leases,omitempty"`
	Limit  *int `json:"limit,omitempty"`
}

// entryOf summarises a view.
func entryOf(v *View) Entry {
	e := Entry{Kind: v.Kind, Path: v.Path, Holders: []string{}}
	for _, n := range v.Nodes {
		switch n.Role {
		case roleHolder, roleReader, roleWriter, roleLeader, roleLease:
			e.Holders = append(e.Holders, n.Data)
		default:
			e.Waiters++
		}
	}
	if v.Kind == kindSemaphore {
		held := len(e.Holders)
		e.Leases, e.Limit = &held, v.Limit
		for _, a := range v.Acquirers {
			if a.Role == roleWaiter { // queued behind the acquirer holding locks/
				e.Waiters++
			}
		}
	}
	return e
}

// walk visits the nodes under root, breadth first, and calls found for each
// recipe directory (it does not descend into them). /zookeeper is skipped.
func walk(ctx context.Context, c *client.Client, root string, found func(p, kind string, kids []string) error) error {
	queue := []string{root}
	seen := 0
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen++; seen > maxWalk {
			return fail(exitNotFound, "more than %d nodes under %s: give a narrower path", maxWalk, root)
		}
		kids, _, err := c.Children(ctx, p)
		if isNoNode(err) && p != root {
			continue
		}
		if err != nil {
			return err
		}
		kind := classify(kids, -1)
		if kind != kindNone && kind != kindCount {
			if err := found(p, kind, kids); err != nil {
				return err
			}
			continue
		}
		sort.Strings(kids)
		for _, k := range kids {
			child := join(p, k)
			if child == "/zookeeper" {
				continue
			}
			queue = append(queue, child)
		}
	}
	return nil
}

func writeEntries(w io.Writer, entries []Entry) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tPATH\tHOLDERS\tWAITERS\tLEASES")
	for _, e := range entries {
		leases := "-"
		if e.Leases != nil {
			leases = fmt.Sprintf("%d/?", *e.Leases)
			if e.Limit != nil {
				leases = fmt.Sprintf("%d/%d", *e.Leases, *e.Limit)
			}
		}
		holders := "-"
		if len(e.Holders) > 0 {
			hs := make([]string, len(e.Holders))
			for i, h := range e.Holders {
				hs[i] = dash(h)
			}
			holders = strings.Join(hs, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", e.Kind, e.Path, holders, e.Waiters, leases)
	}
	_ = tw.Flush()
}

func newLs(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ls [PATH]",
		Short: "List every recipe under a path: kind, holders or leader, waiters, leases",
		Long: `ls walks the tree under PATH (default /) and prints one line per recipe it
recognises by node names: mutex ("lock-" nodes; also a LeaderSelector),
rwlock ("__READ__"/"__WRIT__"), semaphore ("locks/" and "leases/"), latch
("latch-"). Exit 1 when PATH does not exist.

JSON (--json): an array of {kind, path, holders[] (node data of the holders or
the leader), waiters, leases, limit}.`,
		Example: `  zkr ls
  zkr ls /locks --json`,
		Args: argsOrUsage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := "/"
			if len(args) == 1 {
				root = args[0]
			}
			if err := checkPath(root); err != nil {
				return err
			}
			ctx, stop := signalContext()
			defer stop()
			c, err := g.connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			rctx, cancel := context.WithTimeout(ctx, g.timeout)
			defer cancel()
			entries := []Entry{}
			err = walk(rctx, c, root, func(p, _ string, _ []string) error {
				v, err := inspect(rctx, c, p)
				if isNoNode(err) {
					return nil
				}
				if err != nil {
					return err
				}
				entries = append(entries, entryOf(v))
				return nil
			})
			if err != nil {
				return opErr(root, err)
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), entries)
			}
			writeEntries(cmd.OutOrStdout(), entries)
			return nil
		},
	}
	addJSON(cmd, g)
	return cmd
}
