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
// its schedulers as os.Executable() with the scheduler role, which here is
// this binary.
func TestMain(m *testing.M) {
	if isScheduler(os.Args[1:]) {
		os.Exit(schedulerMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// checkNights runs the demo and checks its report: every night recorded
// once, by a runner whose job finished, and the leader killed when asked.
func checkNights(t *testing.T, args []string, nights, kill int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, args, &out); err != nil {
		t.Fatalf("run %q: %v\noutput:\n%s", args, err, out.String())
	}
	s := out.String()
	if want := fmt.Sprintf("\nnights %d, run twice 0, missed 0\n", nights); !strings.HasSuffix(s, want) {
		t.Errorf("output does not end with %q:\n%s", want[1:], s)
	}
	for k := 1; k <= nights; k++ {
		if !strings.Contains(s, fmt.Sprintf("\nnight %d: runner=s", k)) {
			t.Errorf("no record line for night %d:\n%s", k, s)
		}
	}
	if want := fmt.Sprintf(" in the middle of night %d's job\n", kill); kill > 0 && !strings.Contains(s, want) {
		t.Errorf("no line saying the leader was killed during night %d:\n%s", kill, s)
	}
	if kill == 0 && strings.Contains(s, "SIGKILL") {
		t.Errorf("a scheduler was killed although -kill 0:\n%s", s)
	}
	return s
}

// TestNightsStartsItsOwnServer runs the command as `go run` does, with no
// flags: ten nights, the leader killed during night 4.
func TestNightsStartsItsOwnServer(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	s := checkNights(t, nil, 10, 4)
	if !strings.HasPrefix(s, "throwaway ZooKeeper") {
		t.Errorf("without -zk the first line should name the throwaway server:\n%s", s)
	}
	goleak.VerifyNone(t, ignore)
}

func TestNightsAgainstGivenEnsemble(t *testing.T) {
	cluster := zktest.ForTest(t)
	ignore := goleak.IgnoreCurrent()
	s := checkNights(t, []string{"-zk", cluster.ConnectString(), "-nights", "3", "-kill", "0"}, 3, 0)
	if strings.Contains(s, "throwaway") {
		t.Errorf("started its own server although -zk was given:\n%s", s)
	}
	goleak.VerifyNone(t, ignore)
}

func TestNightsRejectsBadFlags(t *testing.T) {
	itest.CheckRejectsFlags(t, run,
		[]string{"-nights", "0"},
		[]string{"-nights", "101"},
		[]string{"-kill", "-1"},
		[]string{"-nights", "3", "-kill", "4"},
		[]string{"-zk", ","},
		[]string{"-nosuchflag"},
		[]string{"extra"},
	)
}
