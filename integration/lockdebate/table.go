package lockdebate

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteTables prints the pause tallies and the failover tallies as two
// Markdown tables (either may be empty and is then left out).
func WriteTables(w io.Writer, pause []Tally, failover []FailoverTally) error {
	var b strings.Builder
	if len(pause) > 0 {
		rows := [][]string{{"lock", "rounds", "overlaps", "stale writes accepted", "stale writes refused", "median pause"}}
		for _, t := range pause {
			rows = append(rows, []string{t.Kind.String(), itoa(t.Rounds), itoa(t.Overlaps),
				itoa(t.StaleAccepted), itoa(t.StaleRefused), t.MedianPause.Round(time.Millisecond).String()})
		}
		writeMarkdown(&b, rows)
	}
	if len(failover) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		rows := [][]string{{"failover", "rounds", "two holders", "first lock kept"}}
		for _, t := range failover {
			rows = append(rows, []string{t.Scenario, itoa(t.Rounds), itoa(t.TwoHolders), itoa(t.Kept)})
		}
		writeMarkdown(&b, rows)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func itoa(n int) string { return strconv.Itoa(n) }

// writeMarkdown writes rows (the first is the header) as a Markdown table
// with padded columns: the first left-aligned, the others right-aligned.
func writeMarkdown(b *strings.Builder, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			if i == 0 {
				fmt.Fprintf(b, " %-*s |", width[i], c)
			} else {
				fmt.Fprintf(b, " %*s |", width[i], c)
			}
		}
		b.WriteString("\n")
	}
	line(rows[0])
	sep := make([]string, len(width))
	for i, n := range width {
		if i == 0 {
			sep[i] = strings.Repeat("-", n)
		} else {
			sep[i] = strings.Repeat("-", n-1) + ":"
		}
	}
	line(sep)
	for _, r := range rows[1:] {
		line(r)
	}
}
