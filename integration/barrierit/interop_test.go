package barrierit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// curatorBarriers is testdata/curator/CuratorBarriers.java on Curator's jars.
func curatorBarriers(t *testing.T) itest.Java {
	return itest.Java{
		Source:    "testdata/curator/CuratorBarriers.java",
		Class:     "CuratorBarriers",
		Classpath: itest.Classpath(t, itest.CuratorJars...),
	}
}

// printed counts the Java program's lines that start with "curator: "+prefix.
func printed(p *itest.JavaProc, prefix string) int {
	n := 0
	for _, line := range strings.Split(p.Printed(), "\n") {
		if strings.HasPrefix(line, "curator: "+prefix) {
			n++
		}
	}
	return n
}

// javaPrints waits until the Java program printed n lines starting with prefix.
func javaPrints(t *testing.T, p *itest.JavaProc, prefix string, n int) {
	t.Helper()
	itest.Eventually(t, 30*time.Second, "curator to print "+prefix, func() bool { return printed(p, prefix) >= n })
}

// TestDistributedDoubleBarrierCuratorInterop: two Curator 5.4
// DistributedDoubleBarrier members (one Java process, a client each) and
// two Go members share one barrier of four. First Java comes first and a
// Go member completes the count (a Go opening); then, on a second path, Go
// comes first and Java completes it (Curator's opening). Each time nobody
// passes before the fourth member is in, every member passes, Leave waits
// for the Java members to leave, and nothing is left.
func TestDistributedDoubleBarrierCuratorInterop(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, 2*time.Minute)
	java := curatorBarriers(t)
	for _, javaFirst := range []bool{true, false} {
		path, signal := "/go-opens", "/go-opens-leave"
		if !javaFirst {
			path, signal = "/curator-opens", "/curator-opens-leave"
		}
		ctx, cancel := context.WithTimeout(r.ctx, 90*time.Second)
		g1 := r.double(r.client(nil, 0), path, 4)
		g2 := r.double(r.client(nil, 0), path, 4)
		var j *itest.JavaProc
		var e1, e2 <-chan error
		if javaFirst {
			j = java.Start(t, ctx, "curator: ready", "double", shared.ConnectString(), r.ns+path, "4", "2", r.ns+signal)
			r.waitMembers(path, 2)
			e1 = r.enter(g1)
			r.waitMembers(path, 3)
			itest.Pending(t, e1, quiet, "a Go member, three of four in")
			require.Zero(t, printed(j, "entered"), "a Java member passed with three of four in")
			e2 = r.enter(g2)
		} else {
			e1, e2 = r.enter(g1), r.enter(g2)
			r.waitMembers(path, 2)
			itest.Pending(t, e1, quiet, "a Go member, two of four in")
			itest.Pending(t, e2, 0, "a Go member, two of four in")
			j = java.Start(t, ctx, "curator: ready", "double", shared.ConnectString(), r.ns+path, "4", "2", r.ns+signal)
		}
		require.NoError(t, await(t, e1, "Go Enter"))
		require.NoError(t, await(t, e2, "Go Enter"))
		require.Equal(t, g1.Round(), g2.Round())
		_, rst, err := r.c.Exists(ctx, path+"/ready")
		require.NoError(t, err)
		require.Equal(t, rst.Czxid, g1.Round(), "the Go members' round is the ready node's czxid")
		javaPrints(t, j, "entered", 2)
		require.Equal(t, 2, printed(j, "entered 0 true")+printed(j, "entered 1 true"), "Java:\n%s", j.Printed())

		l1, l2 := r.leave(g1), r.leave(g2)
		itest.Pending(t, l1, quiet, "Go Leave with the Java members in")
		itest.Pending(t, l2, 0, "Go Leave with the Java members in")
		_, err = r.c.Create(ctx, signal, nil, 0)
		require.NoError(t, err)
		require.NoError(t, await(t, l1, "Go Leave"))
		require.NoError(t, await(t, l2, "Go Leave"))
		out := j.Output(t)
		require.Contains(t, out, "curator: left 0 true")
		require.Contains(t, out, "curator: left 1 true")
		r.requireEmpty(path)
		require.NoError(t, r.c.Delete(ctx, signal, -1))
		cancel()
	}
}

// TestDistributedBarrierCuratorInterop: a barrier set by Curator 5.4's
// DistributedBarrier holds a Go Wait until Java removes it, and a barrier
// set by Go holds Java's waitOnBarrier until Go removes it.
func TestDistributedBarrierCuratorInterop(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, 2*time.Minute)
	java := curatorBarriers(t)
	ctx, cancel := context.WithTimeout(r.ctx, 90*time.Second)
	defer cancel()

	setter := java.Start(t, ctx, "curator: set", "set", shared.ConnectString(), r.ns+"/gate", r.ns+"/open")
	b := r.gate(r.client(nil, 0), "/gate")
	res := r.wait(ctx, b)
	itest.Pending(t, res, quiet, "Go Wait on Java's barrier")
	_, err := r.c.Create(ctx, "/open", nil, 0)
	require.NoError(t, err)
	require.NoError(t, await(t, res, "Go Wait once Java removed its barrier"))
	require.Contains(t, setter.Output(t), "curator: removed")

	require.NoError(t, b.Set(ctx))
	waiter := java.Start(t, ctx, "curator: ready", "wait", shared.ConnectString(), r.ns+"/gate")
	time.Sleep(quiet)
	require.Zero(t, printed(waiter, "passed"), "Java passed Go's barrier")
	require.NoError(t, b.Remove(ctx))
	require.Contains(t, waiter.Output(t), "curator: passed true")
	require.NoError(t, r.c.Delete(ctx, "/open", -1))
	require.False(t, itest.Exists(t, r.c, "/gate"))
}
