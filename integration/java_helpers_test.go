package integration

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// Helpers of the Curator interop tests: compile a program of
// testdata/curator once per test binary, run it, read what it prints
// (package itest does the work).

// curatorProgram is testdata/curator/<class>.java on Curator's jars.
func curatorProgram(t *testing.T, class string) itest.Java {
	return itest.Java{Source: "testdata/curator/" + class + ".java", Class: class, Classpath: curatorClasspath(t)}
}

// compileJava compiles testdata/curator/<class>.java once per test binary
// and returns the classpath to run it with (its classes and Curator's jars).
func compileJava(t *testing.T, class string) string {
	t.Helper()
	return curatorProgram(t, class).Compile(t)
}

// javaProc is one running interop program.
type javaProc struct{ *itest.JavaProc }

// startJava starts `java class args...` (compiled by compileJava) and waits
// until it prints its "curator: ready" line.
func startJava(t *testing.T, ctx context.Context, class string, args ...string) *javaProc {
	t.Helper()
	return &javaProc{curatorProgram(t, class).Start(t, ctx, "curator: ready", args...)}
}

// output waits for the program to end, requires that it succeeded, and
// returns what it printed.
func (p *javaProc) output(t *testing.T) string {
	t.Helper()
	return p.Output(t)
}

// text is what a running Java program has printed so far.
func (p *javaProc) text() string { return p.Printed() }

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
