package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// formatAge renders an age for people: 850ms, 42s, 3m07s, 5h02m, 3d04h.
func formatAge(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int64(d/time.Minute), int64(d%time.Minute/time.Second))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int64(d/time.Hour), int64(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%02dh", int64(d/(24*time.Hour)), int64(d%(24*time.Hour)/time.Hour))
}

func ageOf(n NodeView) string {
	return formatAge(time.Duration(n.AgeSeconds * float64(time.Second)))
}

// dash renders an empty field.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// headline is the first line of a view.
func headline(v *View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s", v.Path, v.Kind)
	switch v.Kind {
	case kindCount:
		if v.Count != nil {
			fmt.Fprintf(&b, "  value %d  version %d", v.Count.Value, v.Count.Version)
		}
	case kindSemaphore:
		held := 0
		for _, n := range v.Nodes {
			if n.Role == roleLease {
				held++
			}
		}
		if v.Limit != nil {
			fmt.Fprintf(&b, "  leases %d/%d", held, *v.Limit)
		} else {
			fmt.Fprintf(&b, "  leases %d (limit not written on the node)", held)
		}
		if w := len(v.Nodes) - held; w > 0 {
			fmt.Fprintf(&b, "  waiting %d", w)
		}
		fmt.Fprintf(&b, "  acquirers %d", len(v.Acquirers))
	case kindNone:
		fmt.Fprintf(&b, "  (no recipe recognised; %d %s)", v.Children, plural(v.Children, "child", "children"))
	default:
		fmt.Fprintf(&b, "  %d %s", len(v.Nodes), plural(len(v.Nodes), "node", "nodes"))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeTable prints nodes as an aligned table.
func writeTable(w io.Writer, indent string, nodes []NodeView) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s#\tROLE\tNODE\tSESSION\tAGE\tTOKEN\tDATA\tWATCHES\n", indent)
	for i, n := range nodes {
		role := n.Role
		if n.Mode != "" {
			role += "(" + n.Mode + ")"
		}
		fmt.Fprintf(tw, "%s%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", indent, i, role, n.Name, n.Session,
			ageOf(n), n.Token, dash(n.Data), dash(n.Watches))
	}
	_ = tw.Flush()
}

// writeView prints the show view of v.
func writeView(w io.Writer, v *View) {
	fmt.Fprintln(w, headline(v))
	switch v.Kind {
	case kindCount, kindNone:
	case kindSemaphore:
		if len(v.Nodes) > 0 {
			fmt.Fprintln(w, "leases:")
			writeTable(w, "  ", v.Nodes)
		}
		if len(v.Acquirers) > 0 {
			fmt.Fprintln(w, "acquirers queued in locks/:")
			writeTable(w, "  ", v.Acquirers)
		}
	default:
		if len(v.Nodes) > 0 {
			writeTable(w, "", v.Nodes)
		}
	}
	if len(v.Foreign) > 0 {
		fmt.Fprintf(w, "foreign children (no contenders): %s\n", strings.Join(v.Foreign, " "))
	}
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
