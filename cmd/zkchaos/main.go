// Command zkchaos soaks zkrecipes' recipes under random faults: it starts
// a throwaway ZooKeeper cluster (three servers by default) and runs chaos
// scenarios (package integration/chaos) round after round, each recipe in
// turn, until the duration is up.
//
//	zkchaos [-recipe all|mutex,rwlock,semaphore,latch,run,node,cache,barrier,counter] [-duration 30m] [-servers 3]
//	        [-parts 4] [-session 1.5s] [-fault 40s] [-calm 8s] [-seed N] [-progress 10s]
//	        [-backend local|docker|auto]
//
// A round is one scenario: participants, each with its own client behind
// its own fault link, run the recipe's workload while faults are drawn from
// the round's seed (link cuts and blackholes shorter than, around and longer
// than the session timeout; dropped replies to create, getChildren and
// delete; a server paused, killed or stopped: the holder's, the leader or a
// follower; the whole ensemble restarted), then a calm phase in which every
// participant must be granted again. Each round prints its summary line
// (the same as the chaos tests'), and, when a check fails, the timeline
// around the violation; its seed reruns it (-seed N -recipe R, one round:
// -duration 1ns).
//
// Every -progress it prints a progress line: elapsed time, rounds, the
// totals so far, and the process's live heap and goroutine count. After
// each round (its clients closed) it samples both; at the end it prints
// them over time and checks that they stayed flat: the median of the last
// three samples may not exceed the highest of rounds 2 to 4 by more than
// half plus 4 MiB (heap), or by more than 10 (goroutines).
//
// Exit status: 0 when every round passed every check and memory and
// goroutines stayed flat, 1 when not, 2 on bad usage, 3 when the cluster
// could not start.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command, with its streams and arguments, for tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if err != errHelp {
			fmt.Fprintln(stderr, "zkchaos:", err)
			return 2
		}
		return 0
	}
	return soak(ctx, o, stdout, stderr)
}
