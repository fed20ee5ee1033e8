package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestMain lets the test binary stand in for the command: the demo starts
// its workers as os.Executable() with the worker role, which here is this
// binary.
func TestMain(m *testing.M) {
	if isWorker(os.Args[1:]) {
		os.Exit(workerMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// runDemo runs the demo and checks the last line of its report.
func runDemo(t *testing.T, args []string, last string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, args, &out); err != nil {
		t.Fatalf("run %q: %v\noutput:\n%s", args, err, out.String())
	}
	s := out.String()
	if !strings.HasSuffix(s, "\n"+last+"\n") {
		t.Errorf("output does not end with %q:\n%s", last, s)
	}
	return s
}

// TestWorkersStartsItsOwnServer runs the command as `go run` does, with no
// flags: ten workers, three killed and started again.
func TestWorkersStartsItsOwnServer(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	s := runDemo(t, nil, "workers 10, killed 3, seen gone 3, seen back 3, final 10 of 10")
	if !strings.HasPrefix(s, "throwaway ZooKeeper") {
		t.Errorf("without -zk the first line should name the throwaway server:\n%s", s)
	}
	for _, id := range []string{"w3", "w6", "w10"} {
		if n := strings.Count(s, "\n"+id+" registered at http://127.0.0.1:"); n != 2 {
			t.Errorf("%s registered %d times, want 2 (killed and started again):\n%s", id, n, s)
		}
		for _, seen := range []string{"-" + id, "+" + id} {
			if !strings.Contains(s, seen) {
				t.Errorf("the client never printed %s:\n%s", seen, s)
			}
		}
	}
	if !strings.Contains(s, "\nparent: SIGKILL w3 (pid ") {
		t.Errorf("no line saying the workers were killed:\n%s", s)
	}
	if !strings.Contains(s, "\nclient sees 10: w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 (") {
		t.Errorf("the client never printed all ten:\n%s", s)
	}
	if !strings.Contains(s, "\nprovider (round robin): 10 calls answered by w1 w10 w2 w3 w4 w5 w6 w7 w8 w9\n") {
		t.Errorf("the provider's calls did not go round the ten workers:\n%s", s)
	}
	goleak.VerifyNone(t, ignore)
}

func TestWorkersAgainstGivenEnsemble(t *testing.T) {
	cluster := zktest.ForTest(t)
	ignore := goleak.IgnoreCurrent()
	s := runDemo(t, []string{"-zk", cluster.ConnectString(), "-workers", "2", "-kill", "0"},
		"workers 2, killed 0, seen gone 0, seen back 0, final 2 of 2")
	if strings.Contains(s, "throwaway") || strings.Contains(s, "parent: SIGKILL") {
		t.Errorf("started its own server although -zk was given, or killed a worker with -kill 0:\n%s", s)
	}
	goleak.VerifyNone(t, ignore)
}

func TestPick(t *testing.T) {
	ids := []string{"w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9", "w10"}
	for k, want := range map[int]string{0: "", 1: "w10", 3: "w3 w6 w10", 10: strings.Join(ids, " ")} {
		if got := strings.Join(pick(ids, k), " "); got != want {
			t.Errorf("pick(%d) = %q, want %q", k, got, want)
		}
	}
	if got := fmt.Sprint(pick([]string{"w1"}, 1)); got != "[w1]" {
		t.Errorf("pick of one = %s", got)
	}
}

func TestWorkersRejectsBadFlags(t *testing.T) {
	itest.CheckRejectsFlags(t, run,
		[]string{"-workers", "0"},
		[]string{"-workers", "31"},
		[]string{"-kill", "-1"},
		[]string{"-workers", "2", "-kill", "3"},
		[]string{"-zk", ","},
		[]string{"-nosuchflag"},
		[]string{"extra"},
	)
}
