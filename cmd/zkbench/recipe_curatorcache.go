package main

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// curatorCacheSource is java/CuratorCacheBench.java, built into the command
// so that it runs from any directory.
//
//go:embed java/CuratorCacheBench.java
var curatorCacheSource []byte

const curatorCacheClass = "CuratorCacheBench"

// curatorCacheHeap is the java process's -Xmx: room for 100 sessions'
// caches or a 10,000-node tree many times over.
const curatorCacheHeap = "-Xmx512m"

// runCuratorCache measures Curator's CuratorCache on tree in a java process
// of its own (java/CuratorCacheBench.java, default GC) and reads its line.
func runCuratorCache(ctx context.Context, e *env, cfg runConfig, f cacheFlags, tree cacheTree) (cacheResult, error) {
	cp, err := buildJavaBench(ctx, curatorCacheClass, curatorCacheSource)
	if err != nil {
		return cacheResult{}, err
	}
	stdout, _, err := runJava(ctx, cp, curatorCacheClass, curatorCacheHeap,
		f.measure, strings.Join(e.servers, ","), tree.root,
		strconv.Itoa(tree.leaves), strconv.Itoa(tree.fanout), strconv.Itoa(tree.dataSize), strconv.FormatBool(f.noData),
		strconv.Itoa(cfg.workers), strconv.Itoa(cfg.iters), strconv.Itoa(cfg.warmup),
		strconv.FormatInt(cfg.session.Milliseconds(), 10))
	if err != nil {
		return cacheResult{}, err
	}
	res, err := parseCacheLine(stdout, recipeCuratorCache)
	if err != nil {
		return cacheResult{}, err
	}
	if res.measure != f.measure || res.nodes != tree.nodes() {
		return cacheResult{}, fmt.Errorf("java %s measured %s of %d nodes, want %s of %d", curatorCacheClass, res.measure, res.nodes, f.measure, tree.nodes())
	}
	return res, nil
}

// parseCacheLine reads a cache result line of recipe from out.
func parseCacheLine(out, recipe string) (cacheResult, error) {
	line, ok := findResultLine(out, recipe)
	if !ok {
		return cacheResult{}, fmt.Errorf("no %s result line in:\n%s", recipe, out)
	}
	res := cacheResult{recipe: recipe, measure: line.fields["measure"]}
	res.nodes = int(line.num("nodes"))
	res.dataSize = int(line.num("data_bytes"))
	res.withData = line.fields["cache_data"] == "true"
	switch res.measure {
	case measureInit:
		res.iters = int(line.num("runs"))
		res.initP50, res.initMin, res.initMax = line.ms("init_p50_ms"), line.ms("init_min_ms"), line.ms("init_max_ms")
		res.cold = line.ms("cold_ms")
		res.cpu = line.ms("cpu_ms")
	case measureLatency:
		res.caches = int(line.num("caches"))
		res.iters = int(line.num("changes"))
		res.events = int(line.num("events"))
		res.p50, res.p99 = line.ms("event_p50_ms"), line.ms("event_p99_ms")
		res.serverWatches = int(line.num("server_watches"))
	case measureHeap:
		res.heapBytes = int64(line.num("heap_bytes"))
		res.perNode = line.num("heap_per_node_bytes")
		res.tablePerNode = line.num("watch_table_per_node_bytes")
		res.heapInitTaken = line.ms("init_ms")
	default:
		return cacheResult{}, fmt.Errorf("line %q: unknown measure %q", line.text, res.measure)
	}
	if err := line.err(); err != nil {
		return cacheResult{}, fmt.Errorf("line %q: %w", line.text, err)
	}
	return res, nil
}
