package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// The demo's nodes, under its base path:
//
//	leader/                  the election (election.Run's nodes)
//	clock                    the night whose time has come ("0" before the first)
//	nights/<k>               night k's record, "runner=<id> token=0x<t>", made once
//	starts/<k>-<id>          made by <id> when it starts night k's job, "finished ..." once it ran to its end
func leaderPath(base string) string { return base + "/leader" }
func clockPath(base string) string  { return base + "/clock" }
func nightsPath(base string) string { return base + "/nights" }
func startsPath(base string) string { return base + "/starts" }

func nightName(k int) string { return fmt.Sprintf("%03d", k) }

func nightPath(base string, k int) string { return path.Join(nightsPath(base), nightName(k)) }

func startPath(base string, k int, id string) string {
	return path.Join(startsPath(base), nightName(k)+"-"+id)
}

// parseStart splits a start node's name into night and scheduler id.
func parseStart(name string) (night int, id string, ok bool) {
	k, id, ok := strings.Cut(name, "-")
	if !ok {
		return 0, "", false
	}
	night, err := strconv.Atoi(k)
	return night, id, err == nil
}

// night is what ZooKeeper holds about one night.
type night struct {
	record   string   // "runner=<id> token=0x<t>", "" when missing
	runner   string   // the record's runner
	started  []string // ids that started its job, in id order
	finished []string // ids whose job ran to its end (recorded or not)
	recorded []string // ids whose start node was marked in the record's transaction
}

// readRecord reads every night's record and starts from ZooKeeper.
func readRecord(ctx context.Context, c *client.Client, base string, nights int) ([]night, error) {
	out := make([]night, nights+1) // out[k] is night k
	for k := 1; k <= nights; k++ {
		data, _, err := c.Get(ctx, nightPath(base, k))
		switch {
		case errors.Is(err, zk.ErrNoNode):
		case err != nil:
			return nil, err
		default:
			out[k].record = string(data)
			out[k].runner, _, _ = strings.Cut(strings.TrimPrefix(out[k].record, "runner="), " ")
		}
	}
	starts, _, err := c.Children(ctx, startsPath(base))
	if err != nil {
		return nil, err
	}
	slices.Sort(starts)
	for _, name := range starts {
		k, id, ok := parseStart(name)
		if !ok || k < 1 || k > nights {
			continue
		}
		data, _, err := c.Get(ctx, path.Join(startsPath(base), name))
		if err != nil {
			return nil, err
		}
		n := &out[k]
		n.started = append(n.started, id)
		switch {
		case strings.HasPrefix(string(data), "recorded"):
			n.recorded = append(n.recorded, id)
			n.finished = append(n.finished, id)
		case strings.HasPrefix(string(data), "finished"):
			n.finished = append(n.finished, id)
		}
	}
	return out, nil
}

// tally is the report's figures.
type tally struct {
	missed, runTwice, startedTwice int
	// cutShort lists the jobs started and not recorded, as
	// "night 4 by s1 (killed mid-job)".
	cutShort []string
}

// report prints the run record, one line per night, and returns the
// figures. A night is missed when it has no record. It is run twice when
// more than one process recorded it, counted from the start nodes each
// record's transaction marked (and when that mark and the record disagree);
// the record is a create, so this stays 0. It is started twice when more
// than one process started its job: a job cut short (its process killed,
// or its term ended) is run again by the next leader.
func report(out *lockedWriter, nights []night, killed string) tally {
	var t tally
	out.printf("run record (from ZooKeeper):\n")
	for k := 1; k < len(nights); k++ {
		n := nights[k]
		line := fmt.Sprintf("night %d: ", k)
		if n.record == "" {
			t.missed++
			line += "MISSED"
		} else {
			line += n.record
		}
		if len(n.recorded) > 1 || (n.record == "") != (len(n.recorded) == 0) ||
			(n.record != "" && !slices.Contains(n.recorded, n.runner)) {
			t.runTwice++
			line += fmt.Sprintf(" (RECORDED BY %s)", strings.Join(n.recorded, ", "))
		}
		if len(n.started) > 1 {
			t.startedTwice++
		}
		for _, id := range n.started {
			if slices.Contains(n.recorded, id) {
				continue
			}
			why := "its term ended mid-job"
			switch {
			case slices.Contains(n.finished, id):
				why = "finished, but not recorded"
			case id == killed:
				why = "killed mid-job"
			}
			t.cutShort = append(t.cutShort, fmt.Sprintf("night %d by %s (%s)", k, id, why))
			line += fmt.Sprintf(" (also started by %s, %s)", id, why)
		}
		out.printf("%s\n", line)
	}
	return t
}
