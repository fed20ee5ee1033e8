package main

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The Curator lock recipes: Curator 5.4's InterProcessMutex,
// InterProcessReadWriteLock and InterProcessMultiLock in a java process, measured as the Go locks
// are (java/CuratorLockBench.java) and printed in their result line.
const (
	recipeCuratorMutex  = "curator-mutex"
	recipeCuratorRWLock = "curator-rwlock"
)

func isCuratorLock(name string) bool {
	return name == recipeCuratorMutex || name == recipeCuratorRWLock || name == recipeCuratorMultiLock
}

// curatorLockSource is java/CuratorLockBench.java, built into the command
// so that it runs from any directory.
//
//go:embed java/CuratorLockBench.java
var curatorLockSource []byte

const curatorLockClass = "CuratorLockBench"

// runCuratorLock runs cfg's Curator lock on a fresh directory in a java
// process and reads its result line. Curator offers no hook to count the
// watch events its waiters get, so the line has no events_per_release.
// With -count, req_per_op counts warm-up and measured cycles alike. runOne
// has validated cfg.
func runCuratorLock(ctx context.Context, e *env, cfg runConfig) (result, error) {
	dir, err := e.runDir(fmt.Sprintf("%s-w%d", cfg.recipe, cfg.workers))
	if err != nil {
		return result{}, err
	}
	cp, err := buildJavaBench(ctx, curatorLockClass, curatorLockSource)
	if err != nil {
		return result{}, err
	}
	servers, err := e.javaServers()
	if err != nil {
		return result{}, err
	}
	mode := strings.TrimPrefix(cfg.recipe, "curator-")
	reqBefore := e.requests()
	stdout, _, err := runJava(ctx, cp, curatorLockClass, "-Xmx256m",
		mode, strings.Join(servers, ","), dir, strconv.Itoa(cfg.workers), strconv.Itoa(cfg.writers),
		strconv.Itoa(cfg.iters), strconv.Itoa(cfg.warmup), javaBudget(cfg.budget),
		strconv.FormatInt(cfg.session.Milliseconds(), 10))
	if err != nil {
		return result{}, err
	}
	line, ok := findResultLine(stdout, cfg.recipe)
	if !ok {
		return result{}, fmt.Errorf("java %s printed no %s line:\n%s", curatorLockClass, cfg.recipe, stdout)
	}
	res := result{cfg: cfg, noEvents: true}
	res.ops = int(line.num("ops"))
	res.elapsed = time.Duration(line.num("secs") * float64(time.Second))
	res.fixed = &[2]time.Duration{line.ms("handoff_p50_ms"), line.ms("handoff_p99_ms")}
	res.violations = int64(line.num("violations"))
	// The counters saw the whole process: warm-up cycles too.
	res.requests = perOp(reqBefore, e.requests(), res.ops+cfg.workers*cfg.warmup)
	if err := line.err(); err != nil {
		return result{}, fmt.Errorf("java %s's line %q: %w", curatorLockClass, line.text, err)
	}
	return res, nil
}
