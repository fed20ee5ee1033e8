package main

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// curatorCounterSource is java/CuratorCounterBench.java, built into the
// command so that it runs from any directory.
//
//go:embed java/CuratorCounterBench.java
var curatorCounterSource []byte

const curatorCounterClass = "CuratorCounterBench"

// runCuratorCounter measures Curator's DistributedAtomicLong on dir in a
// java process and reads its result line; done is every increment that
// succeeded, warm-up included.
func runCuratorCounter(ctx context.Context, e *env, cfg runConfig, f counterFlags, dir string) (counterResult, int, error) {
	cp, err := buildJavaBench(ctx, curatorCounterClass, curatorCounterSource)
	if err != nil {
		return counterResult{}, 0, err
	}
	lock := "-"
	if f.lock {
		lock = dir + "/lock"
	}
	stdout, _, err := runJava(ctx, cp, curatorCounterClass, "-Xmx256m",
		strings.Join(e.servers, ","), dir+"/counter", lock, strconv.Itoa(cfg.workers), strconv.Itoa(cfg.iters),
		strconv.Itoa(cfg.warmup), javaBudget(cfg.budget), strconv.FormatInt(f.base.Milliseconds(), 10),
		strconv.Itoa(f.retries), strconv.FormatInt(cfg.session.Milliseconds(), 10), strconv.FormatInt(f.think.Milliseconds(), 10))
	if err != nil {
		return counterResult{}, 0, err
	}
	line, ok := findResultLine(stdout, recipeCuratorCounter)
	if !ok {
		return counterResult{}, 0, fmt.Errorf("java %s printed no result line:\n%s", curatorCounterClass, stdout)
	}
	res := counterResult{
		ops:       int(line.num("ops")),
		elapsed:   time.Duration(line.num("secs") * float64(time.Second)),
		p50:       line.ms("inc_p50_ms"),
		p99:       line.ms("inc_p99_ms"),
		tries:     int64(line.num("tries")),
		failures:  int64(line.num("failures")),
		promoted:  int64(line.num("promoted")),
		minWorker: int(line.num("worker_min")),
		maxWorker: int(line.num("worker_max")),
	}
	done := int(line.num("done"))
	if err := line.err(); err != nil {
		return counterResult{}, 0, fmt.Errorf("java %s's line %q: %w", curatorCounterClass, line.text, err)
	}
	return res, done, nil
}
