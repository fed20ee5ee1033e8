package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// parseElectLineT splits an election result line into its key=value fields.
func parseElectLineT(t *testing.T, line string) map[string]string {
	t.Helper()
	fields := map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("field %q of %q is not key=value", f, line)
		}
		fields[k] = v
	}
	for _, k := range []string{"recipe", "participants", "iters", "terms", "secs", "terms_per_s",
		"failover_p50_ms", "failover_p99_ms", "violations"} {
		if _, ok := fields[k]; !ok {
			t.Fatalf("line %q has no %s", line, k)
		}
	}
	return fields
}

// The election recipes run briefly: every measured term happens, no two
// leaders at once, tokens grow, and the line parses.
func TestZkbenchElection(t *testing.T) {
	for _, recipe := range electRecipeNames {
		t.Run(recipe, func(t *testing.T) {
			args := []string{"-zk", zkAddr, "-recipe", recipe, "-participants", "3", "-iters", "12", "-warmup", "3"}
			iters := "12"
			if recipe == recipeLatchCrash {
				// Every crash costs about a session timeout.
				args = []string{"-zk", zkAddr, "-recipe", recipe, "-participants", "3", "-iters", "2", "-warmup", "0", "-session", "1s"}
				iters = "2"
			}
			out, err := runCmd(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 1 || lines[0] == "" {
				t.Fatalf("want exactly one line on stdout, got %q", out)
			}
			f := parseElectLineT(t, lines[0])
			wantP := "3"
			if recipe == recipeElectFloor || recipe == recipeRequeueFloor {
				wantP = "2"
			}
			if f["recipe"] != recipe || f["participants"] != wantP || f["iters"] != iters || f["terms"] != iters {
				t.Errorf("want recipe=%s participants=%s iters=%s terms=%s, got %q", recipe, wantP, iters, iters, lines[0])
			}
			if recipe == recipeLatchCrash && number(t, f, "session_ms") <= 0 {
				t.Errorf("latchcrash: want session_ms > 0, got %q", lines[0])
			}
			if f["violations"] != "0" {
				t.Errorf("violations=%s, want 0: %q", f["violations"], lines[0])
			}
			if secs, rate := number(t, f, "secs"), number(t, f, "terms_per_s"); secs <= 0 || rate <= 0 {
				t.Errorf("secs=%v terms_per_s=%v, want both > 0", secs, rate)
			}
			p50, p99 := number(t, f, "failover_p50_ms"), number(t, f, "failover_p99_ms")
			if p50 <= 0 || p99 < p50 {
				t.Errorf("failover p50=%v p99=%v: want 0 < p50 <= p99", p50, p99)
			}
		})
	}
}

func TestZkbenchElectionRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-recipe", recipeLatch},                       // no participants
		{"-recipe", recipeLatch, "-participants", "1"}, // nobody to fail over to
		{"-recipe", recipeCuratorLatch, "-participants", "1"},
		{"-recipe", recipeRun, "-participants", "0"},
		{"-recipe", recipeMutex, "-participants", "3"},
		{"-all", "-participants", "3"},
		{"-recipe", recipeRun, "-participants", "3", "-max", "2"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), args, &out, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
		if out.Len() != 0 {
			t.Errorf("%q: printed %q", args, out.String())
		}
	}
}

func TestParseElectLine(t *testing.T) {
	line := "recipe=curator-latch participants=5 iters=200 terms=200 secs=1.25 terms_per_s=160.0 failover_p50_ms=3.10 failover_p99_ms=10.02 violations=0"
	res, err := parseElectLine("noise\n"+line+"\n", recipeCuratorLatch)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.line(); got != line {
		t.Errorf("line:\n got %s\nwant %s", got, line)
	}
	if _, err := parseElectLine("recipe=curator-latch terms=x\n", recipeCuratorLatch); err == nil {
		t.Error("a bad line parsed")
	}
	if _, err := parseElectLine(line+"\n", recipeCuratorRun); err == nil {
		t.Error("another recipe's line parsed")
	}
}

// fakeTerm is a term for the detector: live until ended.
type fakeTerm struct {
	token int64
	node  string
	ended bool
}

func (f *fakeTerm) Node() string { return f.node }

func (f *fakeTerm) Err() error {
	if f.ended {
		return context.Canceled
	}
	return nil
}

func (f *fakeTerm) Token() int64 { return f.token }

// The detector counts a term that starts while another is live, and a
// token that does not grow.
func TestTermDetector(t *testing.T) {
	var d termDetector
	a, b, c := &fakeTerm{token: 10, node: "a"}, &fakeTerm{token: 20, node: "b"}, &fakeTerm{token: 15, node: "c"}
	d.begin(a)
	if d.count() != 0 {
		t.Fatalf("one term: %d violations", d.count())
	}
	a.ended = true
	d.begin(b)
	if d.count() != 0 {
		t.Fatalf("a term after an ended one: %d violations", d.count())
	}
	d.begin(c) // b still live, and token 15 after 20
	if d.count() != 2 {
		t.Fatalf("a term beside a live one, with a smaller token: %d violations, want 2", d.count())
	}
	b.ended, c.ended = true, true
	resumed := &fakeTerm{token: 15, node: c.node} // c resumed on its node: same token
	d.begin(resumed)
	if d.count() != 2 {
		t.Fatalf("a term resumed on its node: %d violations, want still 2", d.count())
	}
	resumed.ended = true
	d.begin(&fakeTerm{token: 15, node: "other"})
	if d.count() != 3 {
		t.Fatalf("another node with the same token: %d violations, want 3", d.count())
	}
}
