package cacheit

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// javaLines reads the lines a Java program prints that start with prefix
// (the prefix cut off), failing the test when none comes within 30 s.
func javaLines(t *testing.T, p *itest.JavaProc, prefix string, n int) []string {
	t.Helper()
	var out []string
	timeout := time.After(30 * time.Second)
	for len(out) < n {
		select {
		case line, ok := <-p.Lines():
			require.True(t, ok, "java ended; it printed:\n%s", p.Printed())
			if rest, found := strings.CutPrefix(line, prefix); found {
				out = append(out, rest)
			}
		case <-timeout:
			require.FailNowf(t, "java is silent", "want %d %q lines, got %v; it printed:\n%s", n, prefix, out, p.Printed())
		}
	}
	return out
}

// TestCacheCuratorInterop: a Java CuratorCache (Curator 5.4's jars) and
// the Go cache watch one path while a Go client creates, writes and deletes
// nodes under it, one change at a time. For each change both report the
// same event (type, path, data). Then a node is deleted and made again, with
// its child, in one transaction: Curator, on its persistent recursive
// watch, tells two deletions and a creation, the Go cache (which reads the
// node once) a change and the child's deletion; replayed, both give the
// same tree. At the end both caches hold the server's tree.
func TestCacheCuratorInterop(t *testing.T) {
	r := newRig(t, nil)
	r.create("/keep", "") // the namespace's root stays: Curator's chroot must exist
	java := itest.Java{Source: "testdata/curator/CuratorCacheWatch.java", Class: "CuratorCacheWatch",
		Classpath: itest.Classpath(t, itest.CuratorJars...)}
	p := java.Start(t, r.ctx, "curator: ready", shared.ConnectString()+r.ns, "/w")
	cc := itest.Connect(t, shared, itest.Opts{NS: r.ns})
	ch, rec := startCache(t, cc, "/w")
	rec.next(t, "INITIALIZED")

	steps := []struct {
		what  string
		write func()
	}{
		{"create the root", func() { r.create("/w", "") }},
		{"create a child", func() { r.create("/w/a", "1") }},
		{"create another", func() { r.create("/w/b", "2") }},
		{"create a grandchild", func() { r.create("/w/a/x", "3") }},
		{"write a child", func() { r.set("/w/a", "10") }},
		{"write the root", func() { r.set("/w", "root") }},
		{"write the same data", func() { r.set("/w/a", "10") }},
		{"delete a grandchild", func() { r.del("/w/a/x") }},
		{"write a grandchild's parent", func() { r.set("/w/a", "11") }},
		{"delete a child", func() { r.del("/w/b") }},
		{"create an ephemeral", func() {
			_, err := r.c.Create(r.ctx, "/w/e", []byte("eph"), zk.FlagEphemeral)
			require.NoError(t, err)
		}},
		{"create a deep one", func() { r.create("/w/a/y", "4") }},
	}
	for _, s := range steps {
		s.write()
		goEv := rec.take(t, 1)
		javaEv := javaLines(t, p, "event: ", 1)
		require.Equal(t, goEv, javaEv, "after %s", s.what)
	}

	// Deleted and made again unseen by a read: the events differ, the
	// trees they give do not.
	_, err := r.c.Multi(r.ctx,
		&zk.DeleteRequest{Path: "/w/a/y", Version: -1},
		&zk.DeleteRequest{Path: "/w/a", Version: -1},
		&zk.CreateRequest{Path: "/w/a", Data: []byte("new")})
	require.NoError(t, err)
	rec.nextSet(t, "NODE_CHANGED /w/a=new", "NODE_DELETED /w/a/y=4")
	require.Equal(t, []string{"NODE_DELETED /w/a/y=4", "NODE_DELETED /w/a=11", "NODE_CREATED /w/a=new"},
		javaLines(t, p, "event: ", 3))

	r.create("/w/done", "")
	rec.next(t, "NODE_CREATED /w/done=")
	require.Equal(t, []string{"NODE_CREATED /w/done="}, javaLines(t, p, "event: ", 1))
	p.Output(t) // Curator printed its tree and ended
	javaTree := map[string]string{}
	for _, line := range strings.Split(p.Printed(), "\n") {
		if rest, ok := strings.CutPrefix(line, "tree: "); ok {
			path, data, _ := strings.Cut(rest, "=")
			javaTree[path] = data
		}
	}
	converge(t, ch, rec, r.c, "/w", 10*time.Second)
	require.Equal(t, rec.replayed(), javaTree, "Curator's tree and the Go cache's")
	require.Equal(t, map[string]string{"/w": "root", "/w/a": "new", "/w/e": "eph", "/w/done": ""}, javaTree)
}
