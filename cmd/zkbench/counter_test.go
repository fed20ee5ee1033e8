package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// The counter recipes run briefly: every measured increment is counted
// once on the server (no violation), and the line has its fields.
func TestZkbenchCounter(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"counter", []string{"-recipe", recipeCounter}},
		{"counter fresh", []string{"-recipe", recipeCounter, "-fresh"}},
		{"counter lock", []string{"-recipe", recipeCounter, "-retries", "0", "-lock"}},
		{"curator-counter", []string{"-recipe", recipeCuratorCounter}},
		{"curator-counter lock think", []string{"-recipe", recipeCuratorCounter, "-retries", "0", "-lock", "-think", "2ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runCmd(t, append([]string{"-zk", zkAddr, "-workers", "3", "-iters", "20", "-warmup", "5"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("want exactly one line on stdout, got %q", out)
			}
			f := map[string]string{}
			for _, kv := range strings.Fields(lines[0]) {
				k, v, _ := strings.Cut(kv, "=")
				f[k] = v
			}
			if f["recipe"] != tc.args[1] || f["ops"] != "60" || f["violations"] != "0" || f["worker_min"] != "20" || f["worker_max"] != "20" {
				t.Errorf("want recipe=%s ops=60 worker_min=worker_max=20 violations=0, got %q", tc.args[1], lines[0])
			}
			if number(t, f, "incs_per_s") <= 0 || number(t, f, "tries_per_inc") < 1 {
				t.Errorf("incs_per_s or tries_per_inc out of range: %q", lines[0])
			}
		})
	}
}

func TestZkbenchCounterRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-recipe", recipeCounter, "-retry-base", "1500us"},
		{"-recipe", recipeCounter, "-retries", "-1"},
		{"-recipe", recipeCounter, "-think", "-1ms"},
		{"-recipe", recipeCuratorCounter, "-fresh"},
		{"-recipe", recipeMutex, "-lock"},
		{"-all", "-retries", "3"},
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
