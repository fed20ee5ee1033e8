package sharedit

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// javaSharedValue is testdata/curator/CuratorSharedValue.java on Curator's jars.
func javaSharedValue(t *testing.T) itest.Java {
	return itest.Java{
		Source:    "testdata/curator/CuratorSharedValue.java",
		Class:     "CuratorSharedValue",
		Classpath: itest.Classpath(t, itest.CuratorJars...),
	}
}

// curatorSharedValue runs the Java program with args and returns what it
// printed.
func curatorSharedValue(t *testing.T, args ...string) string {
	t.Helper()
	ctx := itest.Ctx(t, time.Minute)
	return strings.TrimSpace(javaSharedValue(t).Start(t, ctx, "curator: value=", append([]string{one.ConnectString()}, args...)...).Output(t))
}

// TestCuratorSharedValueInterop: Curator 5.4's SharedValue and Bytes on
// one node. A Go TrySet is seen by a Java listener; a Java trySetValue
// from the value it read is seen by Go's Events, with the version Java
// wrote, and a Go TrySet from the reading Java's write overtook fails; a
// Java trySetValue from a reading a Go TrySet overtook fails too. The bytes are binary,
// zero bytes included.
func TestCuratorSharedValueInterop(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	path := ns + "/value" // Curator sees absolute paths: no namespace
	c := itest.Connect(t, one, itest.Opts{})
	ctx := itest.Ctx(t, 2*time.Minute)
	b := startBytes(t, c, path, []byte{0})
	changes, cancel := b.Events()
	defer cancel()

	goData := []byte{0, 0xff, 'g', 'o', 0}
	read := value(t, b)
	ok, err := b.TrySet(ctx, read, goData)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, goData, itest.Await(t, changes, 5*time.Second, "Go's own change").Data)
	out := curatorSharedValue(t, path, "await", hex.EncodeToString(goData))
	require.Contains(t, out, "curator: value="+hex.EncodeToString(goData)+" version=1", "Java sees Go's TrySet")

	before := value(t, b)
	javaData := []byte{'j', 0, 'v', 0xa0}
	out = curatorSharedValue(t, path, "tryset", hex.EncodeToString(javaData))
	require.Contains(t, out, "curator: ok=true")
	require.Contains(t, out, "curator: value="+hex.EncodeToString(javaData)+" version=2")
	got := itest.Await(t, changes, 10*time.Second, "Java's change")
	require.Equal(t, javaData, got.Data, "Go sees Java's trySetValue")
	require.Equal(t, int32(2), got.Version)
	ok, err = b.TrySet(ctx, before, []byte("late"))
	require.NoError(t, err)
	require.False(t, ok, "a Go TrySet from the reading Java overtook")

	stale := javaSharedValue(t).Start(t, ctx, "curator: read version=2", one.ConnectString(), path, "stale", hex.EncodeToString([]byte("stale")))
	ok, err = b.TrySet(ctx, value(t, b), []byte("go wins"))
	require.NoError(t, err)
	require.True(t, ok)
	_, err = c.Create(ctx, path+"-go", nil, 0)
	require.NoError(t, err)
	out = stale.Output(t)
	require.Contains(t, out, "curator: ok=false", "Java's trySetValue from the reading Go's TrySet overtook")
	data, st, err := c.Get(ctx, path)
	require.NoError(t, err)
	require.Equal(t, "go wins", string(data))
	require.Equal(t, int32(3), st.Version)
}
