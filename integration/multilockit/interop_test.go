package multilockit

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// curatorMultiLock is testdata/curator/CuratorMultiLock.java on Curator's jars.
func curatorMultiLock(t *testing.T) itest.Java {
	return itest.Java{
		Source:    "testdata/curator/CuratorMultiLock.java",
		Class:     "CuratorMultiLock",
		Classpath: itest.Classpath(t, itest.CuratorJars...),
	}
}

// TestCuratorMultiLockInterop: Curator 5.4's InterProcessMultiLock and a
// Multi over the same two paths exclude each other, whichever holds. Java
// lists the paths sorted (so that it keeps the Multi's order, see the
// package doc of recipes/mutex), Go lists them reversed.
//
//  1. Java holds the set for 1.5 s: the Go TryLock fails with ErrLocked;
//     the Go Lock returns only after Java printed that it releases.
//  2. Go holds: a Java acquire with a 500 ms wait gets nothing; once Go
//     released, a Java acquire gets the set.
//
// Nothing is left under either path.
func TestCuratorMultiLockInterop(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 2*time.Minute)
	java := curatorMultiLock(t)
	abs := []string{ns + "/locks/a", ns + "/locks/b"} // Curator sees absolute paths: no namespace
	m := newMulti(t, c, "/locks/b", "/locks/a")

	held := java.Start(t, ctx, "curator: held", append([]string{shared.ConnectString(), "hold", "1500"}, abs...)...)
	require.Len(t, children(t, ctx, c, "/locks/a"), 1)
	require.Len(t, children(t, ctx, c, "/locks/b"), 1)
	require.ErrorIs(t, m.TryLock(ctx), zkrecipes.ErrLocked, "Java holds the set")
	require.NoError(t, m.Lock(ctx))
	require.Contains(t, held.Printed(), "curator: releasing", "Go got the set before Java released it")
	out := held.Output(t)
	require.Contains(t, out, "curator: released")

	try := func(ms int) string {
		args := append([]string{shared.ConnectString(), "try", strconv.Itoa(ms)}, abs...)
		return strings.TrimSpace(java.Start(t, ctx, "curator: acquired=", args...).Output(t))
	}
	require.Contains(t, try(500), "curator: acquired=false", "Java got the set while Go held it")
	require.NoError(t, m.Unlock(ctx))
	require.Contains(t, try(10000), "curator: acquired=true")
	require.Empty(t, children(t, ctx, c, "/locks/a"))
	require.Empty(t, children(t, ctx, c, "/locks/b"))
}
