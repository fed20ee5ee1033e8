package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// curatorBenchSource is java/CuratorSemaphoreBench.java, built into the
// command so that it runs from any directory.
//
//go:embed java/CuratorSemaphoreBench.java
var curatorBenchSource []byte

const curatorBenchClass = "CuratorSemaphoreBench"

// curatorBenchJars are Curator 5.4's jars and what they need, from Debian's
// libcurator-*-java and zookeeper packages (scripts/install-deps.sh).
var curatorBenchJars = []string{
	"curator-client.jar", "curator-framework.jar", "curator-recipes.jar",
	"guava.jar", "zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar",
}

// curatorClasspath returns the jars' class path, or which one is missing.
func curatorClasspath() (string, error) {
	cp := make([]string, 0, len(curatorBenchJars))
	for _, j := range curatorBenchJars {
		p := filepath.Join("/usr/share/java", j)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("the Curator benches need %s (bash scripts/install-deps.sh): %w", p, err)
		}
		cp = append(cp, p)
	}
	return strings.Join(cp, ":"), nil
}

// buildJavaBench compiles an embedded Java bench program against Curator's
// jars, once per version of its source (kept in the temp directory under
// the source's hash), and returns the class path
// to run it with.
func buildJavaBench(ctx context.Context, class string, source []byte) (string, error) {
	cp, err := curatorClasspath()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(source)
	dir := filepath.Join(os.TempDir(), "zkbench-"+strings.ToLower(class)+"-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, class+".class")); err == nil {
		return dir + ":" + cp, nil
	}
	tmp, err := os.MkdirTemp(os.TempDir(), "zkbench-java-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, class+".java")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		return "", err
	}
	classes := filepath.Join(tmp, "classes")
	out, err := exec.CommandContext(ctx, "javac", "-nowarn", "-d", classes, "-cp", cp, src).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("javac %s: %w\n%s", class, err, out)
	}
	// Another zkbench may have built it meanwhile: either copy will do.
	if err := os.Rename(classes, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, class+".class")); serr != nil {
			return "", fmt.Errorf("keep the compiled classes: %w", err)
		}
	}
	return dir + ":" + cp, nil
}

// runCurator runs Curator's InterProcessSemaphoreV2 on dir in a java
// process (java/CuratorSemaphoreBench.java), samples leases/ on the server
// meanwhile as for Go's semaphore, and reads the program's result line.
func runCurator(ctx context.Context, e *env, cfg semConfig, dir string) (semResult, error) {
	cp, err := buildJavaBench(ctx, curatorBenchClass, curatorBenchSource)
	if err != nil {
		return semResult{}, err
	}
	servers, err := e.javaServers()
	if err != nil {
		return semResult{}, err
	}
	// The sampler runs for the whole process (warm-up included): Curator's
	// warm-up cannot be told apart from outside.
	sampler := sampleLeases(ctx, e.admin, path.Join(dir, semaphore.LeasesDir))
	stdout, _, err := runJava(ctx, cp, curatorBenchClass, "-Xmx256m",
		strings.Join(servers, ","), dir, strconv.Itoa(cfg.workers), strconv.Itoa(cfg.max),
		strconv.Itoa(cfg.iters), strconv.Itoa(cfg.warmup), javaBudget(cfg.budget))
	serverMax := sampler.stop()
	if err != nil {
		return semResult{}, err
	}
	res, err := parseCuratorLine(stdout, cfg)
	if err != nil {
		return semResult{}, err
	}
	res.serverMax = serverMax
	if serverMax > cfg.max+1 {
		res.violations++
	}
	return res, nil
}

// parseCuratorLine reads the java program's result line.
func parseCuratorLine(out string, cfg semConfig) (semResult, error) {
	line, ok := findResultLine(out, recipeCuratorSem)
	if !ok {
		return semResult{}, fmt.Errorf("java %s printed no result line:\n%s", curatorBenchClass, out)
	}
	res := semResult{cfg: cfg}
	res.ops = int(line.num("ops"))
	res.elapsed = time.Duration(line.num("secs") * float64(time.Second))
	res.p50, res.p99 = line.ms("acquire_p50_ms"), line.ms("acquire_p99_ms")
	res.maxInside = int64(line.num("max_inside"))
	res.violations = int64(line.num("violations"))
	if err := line.err(); err != nil {
		return semResult{}, fmt.Errorf("java %s's line %q: %w", curatorBenchClass, line.text, err)
	}
	return res, nil
}

// javaBudget renders a measured phase's budget as the java benches take
// it: whole milliseconds, at least 1 when positive, 0 for none.
func javaBudget(budget time.Duration) string {
	ms := budget.Milliseconds()
	if budget > 0 && ms == 0 {
		ms = 1
	}
	return strconv.FormatInt(ms, 10)
}

// runJava runs class on class path cp (from buildJavaBench) in a java
// process with heap (its -Xmx flag) and args, and returns what it printed;
// when it fails, the error has its output (stderr's last 30 lines).
func runJava(ctx context.Context, cp, class, heap string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.CommandContext(ctx, "java", append([]string{heap, "-cp", cp, class}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("java %s: %w\nstdout:\n%s\nstderr:\n%s", class, err, out.String(), lastLines(errOut.String(), 30))
	}
	return out.String(), errOut.String(), nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
