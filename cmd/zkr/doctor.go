package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// Finding is one problem doctor reports. Its JSON field names are stable.
type Finding struct {
	// Path is the node concerned.
	Path string `json:"path"`
	// Problem is one of: persistent-parent, foreign-child, over-limit,
	// old-holder, busy-session.
	Problem string `json:"problem"`
	// Detail says more, for people.
	Detail string `json:"detail"`
}

// doctorOpts are doctor's thresholds.
type doctorOpts struct {
	olderThan time.Duration
	many      int
}

// goZKLockNode matches the lock nodes of go-zookeeper's zk.Lock: a protected
// name whose guid is 32 hex digits (Curator and zkrecipes write a UUID with
// hyphens).
var goZKLockNode = regexp.MustCompile(`^_c_[0-9a-f]{32}-lock-`)

// diagnose checks one recipe's view.
//
// ZooKeeper reports a container's ephemeralOwner as 0, like a persistent
// node's, so a persistent parent is recognised by who made it: a directory
// holding nodes of go-zookeeper's zk.Lock, which creates missing parents
// PERSISTENT.
func diagnose(v *View, o doctorOpts) []Finding {
	var out []Finding
	for _, n := range append(append([]NodeView{}, v.Nodes...), v.Acquirers...) {
		if goZKLockNode.MatchString(n.Name) {
			out = append(out, Finding{Path: v.Path, Problem: "persistent-parent",
				Detail: "holds nodes of go-zookeeper's zk.Lock, which makes its parents persistent: never reaped once empty"})
			break
		}
	}
	for _, f := range v.Foreign {
		out = append(out, Finding{Path: join(v.Path, f), Problem: "foreign-child",
			Detail: "child that is no contender (no recipe marker in its name)"})
	}
	// The acquirer holding locks/ waits for room with its lease node made:
	// one node over the limit is normal while it does.
	allowed := 0
	if v.Limit != nil {
		allowed = *v.Limit
		if len(v.Acquirers) > 0 {
			allowed++
		}
	}
	if v.Kind == kindSemaphore && v.Limit != nil && len(v.Nodes) > allowed {
		out = append(out, Finding{Path: v.Path, Problem: "over-limit",
			Detail: fmt.Sprintf("%d lease nodes, limit %d written on the node", len(v.Nodes), *v.Limit)})
	}
	if o.olderThan > 0 {
		for _, n := range v.Nodes {
			age := time.Duration(n.AgeSeconds * float64(time.Second))
			if isHolding(n.Role) && age > o.olderThan {
				out = append(out, Finding{Path: join(v.Path, n.Name), Problem: "old-holder",
					Detail: fmt.Sprintf("%s for %s (data %s, session %s)", n.Role, formatAge(age), dash(n.Data), n.Session)})
			}
		}
	}
	return out
}

// busySessions reports sessions owning more than many nodes.
func busySessions(count map[string]int, many int) []Finding {
	var out []Finding
	for s, n := range count {
		if many > 0 && n > many {
			out = append(out, Finding{Path: "/", Problem: "busy-session",
				Detail: fmt.Sprintf("session %s owns %d recipe nodes", s, n)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Detail < out[j].Detail })
	return out
}

func writeFindings(w io.Writer, fs []Finding) {
	if len(fs) == 0 {
		fmt.Fprintln(w, "no problems found")
		return
	}
	for _, f := range fs {
		fmt.Fprintf(w, "%s  %s  %s\n", f.Problem, f.Path, f.Detail)
	}
}

func newDoctor(g *globals) *cobra.Command {
	var o doctorOpts
	cmd := &cobra.Command{
		Use:   "doctor [PATH]",
		Short: "Find what is wrong with the recipes under a path",
		Long: `doctor walks the recipes under PATH (default /) and reports, one line each:
  persistent-parent  a lock parent holding go-zookeeper zk.Lock nodes: zk.Lock
                     makes its parents persistent, never reaped (ZooKeeper
                     does not tell clients which nodes are containers)
  foreign-child      a child of a lock directory that is no contender
  over-limit         a semaphore with more lease nodes than the limit written on it
  old-holder         a holder older than --older-than
  busy-session       a session owning more than --many recipe nodes
Before the findings it prints its own session: id, state, server, the
negotiated timeout and the guaranteed deletes still pending in this process
(a delete the server could not take yet is retried in the background while
its session lives). Exit 0 when nothing is found, 1 when something is. JSON
(--json): an array of {path, problem, detail} (no session line).`,
		Example: `  zkr doctor /locks
  zkr doctor --older-than 2h --json`,
		Args: argsOrUsage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := "/"
			if len(args) == 1 {
				root = args[0]
			}
			if err := checkPath(root); err != nil {
				return err
			}
			findings := []Finding{}
			var session string
			err := g.with(func(ctx context.Context, c clientAPI) error {
				sessions := map[string]int{}
				err := walk(ctx, c, root, func(p, _ string, _ []string) error {
					v, err := inspect(ctx, c, p)
					if isNoNode(err) {
						return nil
					}
					if err != nil {
						return err
					}
					findings = append(findings, diagnose(v, o)...)
					for _, n := range append(v.Nodes, v.Acquirers...) {
						sessions[n.Session]++
					}
					return nil
				})
				if err != nil {
					return opErr(root, err)
				}
				findings = append(findings, busySessions(sessions, o.many)...)
				session = sessionLine(ctx, c) + "\n" + scopeLine(ctx, c, root)
				return nil
			})
			if err != nil {
				return err
			}
			if g.json {
				if err := writeJSON(cmd.OutOrStdout(), findings); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(cmd.OutOrStdout(), session)
				writeFindings(cmd.OutOrStdout(), findings)
			}
			if len(findings) > 0 {
				return &exitError{code: exitNotFound}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&o.olderThan, "older-than", 24*time.Hour, "report holders older than this (0: never)")
	cmd.Flags().IntVar(&o.many, "many", 100, "report sessions owning more than this many recipe nodes (0: never)")
	addJSON(cmd, g)
	return cmd
}

// scopeLine says how many nodes doctor looked at under root (one
// getAllChildrenNumber request, ZooKeeper 3.6+) and who the server takes
// its session for (whoAmI, 3.7+): "-" for what the server cannot tell.
func scopeLine(ctx context.Context, c clientAPI, root string) string {
	nodes := "-"
	if n, err := c.CountDescendants(ctx, root); err == nil {
		nodes = fmt.Sprint(n)
	}
	who := "-"
	if ids, err := c.WhoAmI(ctx); err == nil && len(ids) > 0 {
		parts := make([]string, 0, len(ids))
		for _, id := range ids {
			parts = append(parts, id.Scheme+":"+id.User)
		}
		who = strings.Join(parts, ",")
	}
	return fmt.Sprintf("nodes under %s %s  authenticated as %s", root, nodes, who)
}

// sessionLine describes doctor's own session: what the client knows of it.
func sessionLine(ctx context.Context, c clientAPI) string {
	id, server := "-", "-"
	if s := c.Session(); s != nil {
		id = fmt.Sprintf("0x%x", uint64(s.ID()))
	}
	if conn, err := c.Conn(ctx); err == nil {
		server = conn.Server()
	}
	return fmt.Sprintf("session %s  %s  server %s  timeout %v  deletes pending %d  given up %d",
		id, c.State(), server, c.SessionTimeout(), c.PendingDeletes(), c.DeletesGivenUp())
}
