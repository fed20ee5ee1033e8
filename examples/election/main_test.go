package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestTurnsStartsItsOwnServer runs the command as `go run` does, with no
// flags, and checks its report: ten terms in order, none overlapping, tokens
// growing.
func TestTurnsStartsItsOwnServer(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, nil, &out); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	s := out.String()
	if !strings.HasPrefix(s, "throwaway ZooKeeper") {
		t.Errorf("without -zk the first line should name the throwaway server:\n%s", s)
	}
	if !strings.HasSuffix(s, "\nterms 10, overlapping 0, tokens increasing: true\n") {
		t.Errorf("output does not end with the report:\n%s", s)
	}
	for n := 1; n <= 10; n++ {
		if !strings.Contains(s, fmt.Sprintf("\nterm %d: p", n)) {
			t.Errorf("no line for term %d:\n%s", n, s)
		}
	}
	for p := 1; p <= 10; p++ {
		if got := strings.Count(s, fmt.Sprintf(": p%d token 0x", p)); got != 1 {
			t.Errorf("p%d led %d times, want once:\n%s", p, got, s)
		}
	}
	goleak.VerifyNone(t, ignore)
}

func TestTurnsAgainstGivenEnsemble(t *testing.T) {
	cluster := zktest.ForTest(t)
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, []string{"-zk", cluster.ConnectString(), "-participants", "3"}, &out); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	if s := out.String(); strings.Contains(s, "throwaway") ||
		!strings.HasSuffix(s, "\nterms 3, overlapping 0, tokens increasing: true\n") {
		t.Errorf("want no throwaway server and the report for 3 terms:\n%s", s)
	}
	goleak.VerifyNone(t, ignore)
}

func TestTurnsRejectsBadFlags(t *testing.T) {
	itest.CheckRejectsFlags(t, run,
		[]string{"-participants", "0"},
		[]string{"-participants", "1001"},
		[]string{"-zk", ","},
		[]string{"-nosuchflag"},
		[]string{"extra"},
	)
}
