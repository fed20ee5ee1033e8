package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// The cache recipes run briefly, Go's and Curator's, for each measure: one
// line of the measure's fields, for the whole tree.
func TestZkbenchCache(t *testing.T) {
	for _, recipe := range cacheRecipeNames {
		for _, measure := range cacheMeasures {
			t.Run(recipe+"/"+measure, func(t *testing.T) {
				args := []string{"-zk", zkAddr, "-recipe", recipe, "-measure", measure,
					"-nodes", "30", "-fanout", "10", "-datasize", "20", "-iters", "3", "-warmup", "1"}
				if measure == measureLatency {
					args = append(args, "-workers", "3")
				}
				out, err := runCmd(t, args...)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if len(lines) != 1 || lines[0] == "" {
					t.Fatalf("want exactly one line on stdout, got %q", out)
				}
				res, err := parseCacheLine(lines[0], recipe)
				if err != nil {
					t.Fatal(err)
				}
				// 30 leaves under 3 parents under the root.
				if res.measure != measure || res.nodes != 34 || res.dataSize != 20 || !res.withData {
					t.Errorf("want measure=%s nodes=34 data_bytes=20 cache_data=true, got %q", measure, lines[0])
				}
				switch measure {
				case measureInit:
					if res.iters != 3 || res.initMin <= 0 || res.initMin > res.initP50 || res.initP50 > res.initMax || res.cold <= 0 {
						t.Errorf("want runs=3 and 0 < min <= p50 <= max, cold > 0: %q", lines[0])
					}
				case measureLatency:
					if res.caches != 3 || res.iters != 3 || res.events != 9 || res.p50 <= 0 || res.p99 < res.p50 {
						t.Errorf("want caches=3 changes=3 events=9 and 0 < p50 <= p99: %q", lines[0])
					}
				case measureHeap:
					if res.heapBytes <= 0 || res.perNode <= 0 {
						t.Errorf("want heap > 0: %q", lines[0])
					}
					// The Go cache's share of the connection's watch table is
					// what its close frees with the session still open: with one
					// persistent watch about nothing a node, so on 34 nodes it is
					// within the heap's noise (even below 0); it is only reported.
				}
			})
		}
	}
}

// WithoutData: the same line, with cache_data=false.
func TestZkbenchCacheNoData(t *testing.T) {
	out, err := runCmd(t, "-zk", zkAddr, "-recipe", recipeCache, "-measure", measureInit, "-nodes", "5", "-nodata", "-iters", "1", "-warmup", "0")
	if err != nil {
		t.Fatal(err)
	}
	res, err := parseCacheLine(out, recipeCache)
	if err != nil {
		t.Fatal(err)
	}
	if res.withData || res.nodes != 7 {
		t.Errorf("want cache_data=false nodes=7, got %q", out)
	}
}

func TestZkbenchCacheRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-recipe", recipeMutex, "-nodes", "10"},
		{"-recipe", recipeMutex, "-nodata"},
		{"-all", "-measure", "heap"},
		{"-recipe", recipeCache, "-measure", "speed"},
		{"-recipe", recipeCache, "-nodes", "0"},
		{"-recipe", recipeCache, "-fanout", "0"},
		{"-recipe", recipeCache, "-datasize", "-1"},
		{"-recipe", recipeCuratorCache, "-measure", "latency", "-workers", "0"},
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

func TestCacheTreePaths(t *testing.T) {
	tree := cacheTree{root: "/r", leaves: 250, fanout: 100}
	if tree.parents() != 3 || tree.nodes() != 254 {
		t.Errorf("parents %d nodes %d, want 3 and 254", tree.parents(), tree.nodes())
	}
	if got := tree.leaf(0); got != "/r/p0/c0" {
		t.Errorf("leaf 0 = %s", got)
	}
	if got := tree.leaf(249); got != "/r/p2/c49" {
		t.Errorf("leaf 249 = %s", got)
	}
}

func TestParseCacheLine(t *testing.T) {
	for _, line := range []string{
		"recipe=curator-cache measure=init nodes=1011 data_bytes=100 cache_data=true runs=5 init_p50_ms=40.10 init_min_ms=38.00 init_max_ms=45.20 cold_ms=60.30 cpu_ms=80.50",
		"recipe=curator-cache measure=latency nodes=111 data_bytes=100 cache_data=true caches=100 changes=200 events=20000 event_p50_ms=1.234 event_p99_ms=5.678 server_watches=100",
		"recipe=curator-cache measure=heap nodes=10101 data_bytes=100 cache_data=false heap_bytes=2717464 heap_per_node_bytes=269 watch_table_per_node_bytes=-1 init_ms=2051.13",
	} {
		res, err := parseCacheLine("noise\n"+line+"\n", recipeCuratorCache)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.line(); got != line {
			t.Errorf("round trip:\n got %s\nwant %s", got, line)
		}
	}
	for _, bad := range []string{
		"recipe=curator-cache measure=init nodes=x\n",
		"recipe=curator-cache measure=speed nodes=1\n",
		"nothing\n",
	} {
		if _, err := parseCacheLine(bad, recipeCuratorCache); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
