package itest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// CuratorJars are Curator 5.4's jars and what they need, from Debian's
// libcurator-*-java packages (scripts/install-deps.sh installs them).
var CuratorJars = []string{
	"curator-client.jar", "curator-framework.jar", "curator-recipes.jar",
	"guava.jar", "zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar",
}

// DiscoveryJars are what curator-x-discovery adds to CuratorJars
// (Debian's libcurator-discovery-java and its Jackson).
var DiscoveryJars = []string{
	"curator-x-discovery.jar", "jackson-databind.jar", "jackson-core.jar", "jackson-annotations.jar",
}

// Classpath joins jars of /usr/share/java, failing the test when one is missing.
func Classpath(t testing.TB, jars ...string) string {
	t.Helper()
	var cp []string
	for _, j := range jars {
		p := filepath.Join("/usr/share/java", j)
		_, err := os.Stat(p)
		require.NoError(t, err, "Curator interop needs %s: run scripts/install-deps.sh", p)
		cp = append(cp, p)
	}
	return strings.Join(cp, ":")
}

// javaBuild is one program's compilation, done once per test binary.
type javaBuild struct {
	once sync.Once
	dir  string
	logs []byte
	err  error
}

var javaBuilds sync.Map // source path -> *javaBuild

// Java is a Java program of a test package's testdata: Source is its .java
// file (relative to the package directory), Class its main class and
// Classpath what it compiles and runs against.
type Java struct {
	Source    string
	Class     string
	Classpath string
}

// Compile compiles the program once per test binary and returns the class
// path to run it with.
func (j Java) Compile(t testing.TB) string {
	t.Helper()
	v, _ := javaBuilds.LoadOrStore(j.Source, &javaBuild{})
	b := v.(*javaBuild)
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "zkrecipes-"+j.Class+"-"); b.err != nil {
			return
		}
		cmd := exec.Command("javac", "-d", b.dir, "-cp", j.Classpath, j.Source)
		b.logs, b.err = cmd.CombinedOutput()
	})
	require.NoError(t, b.err, "javac %s: %s", j.Source, b.logs)
	return b.dir + ":" + j.Classpath
}

// JavaProc is one running Java program.
type JavaProc struct {
	mu    sync.Mutex
	out   bytes.Buffer
	lines chan string
	done  chan error
}

// Start runs the program with args (compiling it first) and waits until it
// prints a line starting with ready (e.g. "curator: ready"), or ctx ends.
// Every line it prints is kept for Output and also sent to Lines.
func (j Java) Start(t testing.TB, ctx context.Context, ready string, args ...string) *JavaProc {
	t.Helper()
	cmd := exec.CommandContext(ctx, "java", append([]string{"-Xmx128m", "-cp", j.Compile(t), j.Class}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard // slf4j's "no binding" notice
	require.NoError(t, cmd.Start())
	p := &JavaProc{lines: make(chan string, 4096), done: make(chan error, 1)}
	up := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		var once sync.Once
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.out.WriteString(line + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- line:
			default: // nobody reads Lines: Output still has it
			}
			if strings.HasPrefix(line, ready) {
				once.Do(func() { close(up) })
			}
		}
		once.Do(func() { close(up) })
		close(p.lines)
		p.done <- cmd.Wait()
	}()
	select {
	case <-up:
	case <-ctx.Done():
		t.Fatalf("java %s did not start: %v", j.Class, ctx.Err())
	}
	return p
}

// Lines delivers the lines the program prints (up to 4096 unread at a time;
// more are kept only for Output). It is closed when the program's output ends.
func (p *JavaProc) Lines() <-chan string { return p.lines }

// Printed is what the program printed so far.
func (p *JavaProc) Printed() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Output waits for the program to end, requires that it succeeded, and
// returns what it printed.
func (p *JavaProc) Output(t testing.TB) string {
	t.Helper()
	err := <-p.done
	out := p.Printed()
	require.NoError(t, err, "java output:\n%s", out)
	return out
}
