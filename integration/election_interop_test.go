package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// elJavaSays waits until the Curator program's last status line is want.
func elJavaSays(t *testing.T, p *javaProc, want string) {
	t.Helper()
	eventually(t, 20*time.Second, "curator to print "+want, func() bool {
		out := p.text()
		var last string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "curator: leading=") {
				last = line
			}
		}
		return last == want
	})
}

// TestLatchCuratorInterop: a Curator 5.4 LeaderLatch (a Java process) and
// Go latches on one path. While the Go latch leads, Java follows and names
// it; when it closes, Java leads and both sides name Java; a Go latch that
// joins then waits, and leads once Java closes. Exactly one leader at each
// step, ids round-trip both ways.
func TestLatchCuratorInterop(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	g1 := elLatch(t, connect(t, clientOpts{ns: ns}), "go-1")
	elAwait(t, g1, 10*time.Second)

	java := startJava(t, ctx, "CuratorLatch", shared.ConnectString(), ns+elPath, "java-1", ns+"/stop")
	waitChildren(t, obs, elPath, 2)
	elJavaSays(t, java, "curator: leading=false leader=go-1")
	require.True(t, g1.Leading())

	require.NoError(t, g1.Close(ctx))
	elJavaSays(t, java, "curator: leading=true leader=java-1")
	p, err := election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, "java-1", p.ID)
	require.Contains(t, p.Node, "-latch-")

	g2 := elLatch(t, connect(t, clientOpts{ns: ns}), "go-2")
	ps, err := election.Participants(ctx, obs, elPath)
	require.NoError(t, err)
	require.Len(t, ps, 2)
	require.Equal(t, []string{"java-1", "go-2"}, []string{ps[0].ID, ps[1].ID})
	elNoLeaderFor(t, 300*time.Millisecond, g2)
	elJavaSays(t, java, "curator: leading=true leader=java-1")

	_, err = obs.Create(ctx, "/stop", nil, 0)
	require.NoError(t, err)
	require.Contains(t, java.output(t), "curator: done")
	term := elAwait(t, g2, 10*time.Second)
	p, err = election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, "go-2", p.ID)
	require.Equal(t, term.Token(), p.Token)
}

// TestRunCuratorInterop: a Curator 5.4 LeaderSelector (a Java process) and
// Go Run participants on one path. While Go leads, Java waits and names the
// Go id; when the Go lead returns, Java's takeLeadership runs and both
// sides name Java; a Go Run that joins waits, and leads once Java's
// takeLeadership returned.
func TestRunCuratorInterop(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	terms := make(chan *election.Term, 4)
	lead := func(ctx context.Context, term *election.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	}
	g1ctx, g1cancel := context.WithCancel(ctx)
	defer g1cancel()
	g1 := elRun(g1ctx, connect(t, clientOpts{ns: ns}), "go-1", lead, election.WithRunOnce())
	t1 := await(t, terms, 10*time.Second, "go-1's term")

	java := startJava(t, ctx, "CuratorSelector", shared.ConnectString(), ns+elPath, "java-1", ns+"/stop")
	waitChildren(t, obs, elPath, 2)
	elJavaSays(t, java, "curator: leading=false leader=go-1")
	require.NoError(t, t1.Err())

	g1cancel()
	require.NoError(t, await(t, g1, 10*time.Second, "go-1's Run"), "WithRunOnce returns lead's error")
	elJavaSays(t, java, "curator: leading=true leader=java-1")
	p, err := election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, "java-1", p.ID)
	require.Contains(t, p.Node, "-lock-")

	g2ctx, g2cancel := context.WithCancel(ctx)
	defer g2cancel()
	g2 := elRun(g2ctx, connect(t, clientOpts{ns: ns}), "go-2", lead, election.WithRunOnce())
	waitChildren(t, obs, elPath, 2)
	ps, err := election.Participants(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, []string{"java-1", "go-2"}, []string{ps[0].ID, ps[1].ID})
	pending(t, terms, 300*time.Millisecond, "go-2's term while Java leads")

	_, err = obs.Create(ctx, "/stop", nil, 0)
	require.NoError(t, err)
	t2 := await(t, terms, 10*time.Second, "go-2's term")
	require.Contains(t, java.output(t), "curator: done")
	require.Greater(t, t2.Token(), t1.Token())
	g2cancel()
	require.NoError(t, await(t, g2, 10*time.Second, "go-2's Run"))
	require.Empty(t, elNodes(t, obs))
}
