package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// Member is one member of a group as zkr members shows it. Its JSON field
// names are stable.
type Member struct {
	// ID is the member's id: its node's name.
	ID string `json:"id"`
	// Data is the member's data as text, or hex ("0x...") when it is not
	// printable text; DataBytes is its length in bytes.
	Data      string `json:"data"`
	DataBytes int    `json:"data_bytes"`
	// Session is the owner session id in hex (0x...), from ephemeralOwner;
	// "0x0" for a node that is not ephemeral.
	Session string `json:"session"`
	// Created is the node's ctime, RFC 3339; AgeSeconds is now minus ctime.
	Created    time.Time `json:"created"`
	AgeSeconds float64   `json:"age_seconds"`
	// Czxid is the zxid of the node's creation: it grows with each join.
	Czxid int64 `json:"czxid"`
}

// GroupView is what zkr members prints. Its JSON field names are stable.
type GroupView struct {
	// Path is the group's path (relative to the namespace).
	Path string `json:"path"`
	// Members are the group's members, sorted by id.
	Members []Member `json:"members"`
}

const membersFields = `JSON fields (stable): path, members[] sorted by id, each: id, data (text, or
0x-hex), data_bytes, session (hex, 0x0 for a node that is not ephemeral),
created (RFC 3339), age_seconds, czxid.`

// membersOf builds a group's view from its children as read; now is for
// the ages.
func membersOf(p string, raw []rawNode, now time.Time) *GroupView {
	g := &GroupView{Path: p, Members: make([]Member, 0, len(raw))}
	for _, r := range raw {
		m := Member{ID: r.Name, Data: decodeData(r.Data), DataBytes: len(r.Data),
			Session: sessionHex(r.EphemeralOwner), Czxid: r.Czxid}
		if r.Ctime > 0 {
			m.Created = time.UnixMilli(r.Ctime).UTC()
			m.AgeSeconds = roundSeconds(now.Sub(m.Created))
		}
		g.Members = append(g.Members, m)
	}
	sort.Slice(g.Members, func(i, j int) bool { return g.Members[i].ID < g.Members[j].ID })
	return g
}

// maxDataText bounds the data column of a table: longer data is cut and
// its length given.
const maxDataText = 60

// shortData renders data for a table column: as decodeData, cut to
// maxDataText characters with the length in bytes after it.
func shortData(s string, n int) string {
	r := []rune(s)
	if len(r) <= maxDataText {
		return dash(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", string(r[:maxDataText-3]), n)
}

// writeMembers prints a group as a table.
func writeMembers(w io.Writer, g *GroupView) {
	fmt.Fprintf(w, "%s  group  %d %s\n", g.Path, len(g.Members), plural(len(g.Members), "member", "members"))
	if len(g.Members) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSESSION\tAGE\tCZXID\tDATA")
	for _, m := range g.Members {
		age := formatAge(time.Duration(m.AgeSeconds * float64(time.Second)))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", m.ID, m.Session, age, m.Czxid, shortData(m.Data, m.DataBytes))
	}
	_ = tw.Flush()
}

// readGroup reads the group at p. A missing node is an error matching
// zk.ErrNoNode.
func readGroup(ctx context.Context, c clientAPI, p string) (*GroupView, error) {
	kids, _, err := c.Children(ctx, p)
	if err != nil {
		return nil, err
	}
	raw, err := readChildren(ctx, c, p, kids)
	if err != nil {
		return nil, err
	}
	return membersOf(p, raw, time.Now()), nil
}

func newMembers(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "members PATH",
		Short: "List the members of a group (recipes/group, Curator's GroupMember)",
		Long: `members prints the group at PATH, one line per member: its id (the node's
name), owner session, age, czxid and data (text, or hex when not printable;
long data is cut, with its length). The layout is Curator's GroupMember's
(an ephemeral node PATH/<id> holding the member's data), so Java groups show
too. Exit 1 when PATH does not exist; a group without members is exit 0.

` + membersFields,
		Example: `  zkr members /groups/workers
  zkr members /groups/workers --json | jq -r '.members[].id'`,
		Args: argsOrUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := args[0]
			if err := checkPath(p); err != nil {
				return err
			}
			return g.with(func(ctx context.Context, c clientAPI) error {
				v, err := readGroup(ctx, c, p)
				if err != nil {
					return opErr(p, err)
				}
				if g.json {
					return writeJSON(cmd.OutOrStdout(), v)
				}
				writeMembers(cmd.OutOrStdout(), v)
				return nil
			})
		},
	}
	addJSON(cmd, g)
	return cmd
}
