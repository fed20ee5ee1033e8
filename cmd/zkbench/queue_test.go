package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// The queue recipes run briefly: every item comes out exactly once, and
// the line has its fields.
func TestZkbenchQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"queue", []string{"-recipe", recipeQueue}},
		{"queue no lock", []string{"-recipe", recipeQueue, "-lock-safe=false"}},
		{"curator-queue", []string{"-recipe", recipeCuratorQueue}},
		{"curator-queue no lock", []string{"-recipe", recipeCuratorQueue, "-lock-safe=false"}},
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
			if f["recipe"] != tc.args[1] || f["items"] != "60" || f["dups"] != "0" || f["lost"] != "0" {
				t.Errorf("want recipe=%s items=60 dups=0 lost=0, got %q", tc.args[1], lines[0])
			}
			if number(t, f, "items_per_s") <= 0 || number(t, f, "latency_p50_ms") <= 0 {
				t.Errorf("items_per_s or latency_p50_ms out of range: %q", lines[0])
			}
		})
	}
}

// TestZkbenchQueueListing grows a queue to 1,000 items and lists it.
func TestZkbenchQueueListing(t *testing.T) {
	out, err := runCmd(t, "-zk", zkAddr, "-recipe", recipeQueueListing, "-iters", "1000")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "recipe=queue-listing items=1000 reply_kb=19.5 ") || !strings.HasSuffix(out, " ok=true\n") {
		t.Errorf("got %q", out)
	}
}

func TestZkbenchQueueRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-recipe", recipeMutex, "-lock-safe=false"},
		{"-recipe", recipeQueue, "-count"},
		{"-recipe", recipeQueueListing, "-count"},
		{"-all", "-lock-safe"},
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
