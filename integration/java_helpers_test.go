package integration

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// Helpers of the Curator interop tests: compile a program of
// testdata/curator once per test binary, run it, read what it prints.

// javaBuild is one program's compilation, done once.
type javaBuild struct {
	once sync.Once
	dir  string
	logs []byte
	err  error
}

var javaBuilds sync.Map // class name -> *javaBuild

// compileJava compiles testdata/curator/<class>.java once per test binary
// and returns the classpath to run it with (its classes and Curator's jars).
func compileJava(t *testing.T, class string) string {
	t.Helper()
	cp := curatorClasspath(t)
	v, _ := javaBuilds.LoadOrStore(class, &javaBuild{})
	b := v.(*javaBuild)
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "zkrecipes-"+class+"-"); b.err != nil {
			return
		}
		cmd := exec.Command("javac", "-d", b.dir, "-cp", cp, "testdata/curator/"+class+".java")
		b.logs, b.err = cmd.CombinedOutput()
	})
	require.NoError(t, b.err, "javac %s: %s", class, b.logs)
	return b.dir + ":" + cp
}

// javaProc is one running interop program.
type javaProc struct {
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
}

// startJava starts `java class args...` (compiled by compileJava) and waits
// until it prints its "curator: ready" line.
func startJava(t *testing.T, ctx context.Context, class string, args ...string) *javaProc {
	t.Helper()
	cmd := exec.CommandContext(ctx, "java", append([]string{"-Xmx128m", "-cp", compileJava(t, class), class}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard // slf4j's "no binding" notice
	require.NoError(t, cmd.Start())
	p := &javaProc{done: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		var once sync.Once
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if strings.HasPrefix(sc.Text(), "curator: ready") {
				once.Do(func() { close(ready) })
			}
		}
		once.Do(func() { close(ready) })
		p.done <- cmd.Wait()
	}()
	select {
	case <-ready:
	case <-ctx.Done():
		t.Fatalf("java %s did not start: %v", class, ctx.Err())
	}
	return p
}

// output waits for the program to end, requires that it succeeded, and
// returns what it printed.
func (p *javaProc) output(t *testing.T) string {
	t.Helper()
	err := <-p.done
	p.mu.Lock()
	out := p.out.String()
	p.mu.Unlock()
	require.NoError(t, err, "curator output:\n%s", out)
	return out
}

// watchMixed polls dir (every 5 ms) until stop is called and reports whether
// Go nodes (data starting "go-") and Java ones were ever seen in it
// together: an interop run that never mixed them proved nothing.
func watchMixed(ctx context.Context, root *client.Client, dir string) (stop func() (mixed bool)) {
	var mixed atomic.Bool
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-time.After(5 * time.Millisecond):
			}
			kids, _, err := root.Children(ctx, dir)
			if err != nil {
				continue
			}
			var goN, javaN int
			for _, k := range kids {
				data, _, err := root.Get(ctx, dir+"/"+k)
				if err != nil {
					continue
				}
				if strings.HasPrefix(string(data), "go-") {
					goN++
				} else {
					javaN++
				}
			}
			if goN > 0 && javaN > 0 {
				mixed.Store(true)
			}
		}
	}()
	return func() bool {
		close(quit)
		<-done
		return mixed.Load()
	}
}
