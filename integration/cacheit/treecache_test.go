package cacheit

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// Ports of Curator's TestTreeCache: one cache of a whole subtree (or of a
// few levels of it), its events checked one by one. Events of different
// nodes that the cache reads in parallel (siblings of the initial load)
// are checked as a set; a parent's Created always comes before its
// children's, which the recorder checks on every event.

// TestCacheSelector is a port of TestTreeCache.testSelector: a filter
// leaves out one child and everything below another's child.
func TestCacheSelector(t *testing.T) {
	r := newRig(t, nil)
	r.creates("/root", "/root/n1-a", "/root/n1-b", "/root/n1-b/n2-a", "/root/n1-b/n2-b",
		"/root/n1-b/n2-b/n3-a", "/root/n1-c", "/root/n1-d")
	keep := func(p string) bool {
		return p != "/root/n1-c" && !strings.HasPrefix(p, "/root/n1-b/n2-b/")
	}
	ch, rec := startCache(t, r.c, "/root", cache.WithFilter(keep))
	rec.next(t, "NODE_CREATED /root=root")
	rec.nextSet(t, "NODE_CREATED /root/n1-a=n1-a", "NODE_CREATED /root/n1-b=n1-b", "NODE_CREATED /root/n1-d=n1-d",
		"NODE_CREATED /root/n1-b/n2-a=n2-a", "NODE_CREATED /root/n1-b/n2-b=n2-b")
	rec.next(t, "INITIALIZED")
	rec.none(t)
	require.Equal(t, []string{"n1-a", "n1-b", "n1-d"}, names(ch.Children("/root")))
	_, ok := ch.Get("/root/n1-b/n2-b/n3-a")
	require.False(t, ok)

	// A refused path stays out when it changes or is made again.
	r.set("/root/n1-c", "x")
	r.create("/root/n1-b/n2-b/n3-b", "y")
	r.create("/root/n1-e", "e")
	rec.next(t, "NODE_CREATED /root/n1-e=e")
	rec.none(t)
}

// TestCacheStartup is a port of TestTreeCache.testStartup.
func TestCacheStartup(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.create("/test/1", "one")
	r.create("/test/2", "two")
	r.create("/test/3", "three")
	r.create("/test/2/sub", "two-sub")
	ch, rec := startCache(t, r.c, "/test")
	rec.next(t, "NODE_CREATED /test=")
	rec.nextSet(t, "NODE_CREATED /test/1=one", "NODE_CREATED /test/2=two", "NODE_CREATED /test/3=three",
		"NODE_CREATED /test/2/sub=two-sub")
	rec.next(t, "INITIALIZED")
	rec.none(t)
	require.Equal(t, []string{"1", "2", "3"}, names(ch.Children("/test")))
	require.Empty(t, ch.Children("/test/1"))
	require.Equal(t, []string{"sub"}, names(ch.Children("/test/2")))
	require.Empty(t, ch.Children("/test/non_exist"))
	require.Equal(t, 5, ch.Len())
}

// TestCacheCreateParents is a port of TestTreeCache.testCreateParents (the
// half that applies: the cache only reads, so a missing root stays
// missing; Go has no createParentNodes option).
func TestCacheCreateParents(t *testing.T) {
	r := newRig(t, nil)
	_, rec := startCache(t, r.c, "/one/two/three")
	rec.next(t, "INITIALIZED")
	rec.none(t)
	ok, _, err := r.c.Exists(r.ctx, "/one")
	require.NoError(t, err)
	require.False(t, ok, "the cache made its root's parents")
}

// TestCacheStartEmpty is a port of TestTreeCache.testStartEmpty.
func TestCacheStartEmpty(t *testing.T) {
	r := newRig(t, nil)
	_, rec := startCache(t, r.c, "/test")
	rec.next(t, "INITIALIZED")
	r.create("/test", "")
	rec.next(t, "NODE_CREATED /test=")
	rec.none(t)
}

// TestCacheStartEmptyDeeper is a port of TestTreeCache.testStartEmptyDeeper.
func TestCacheStartEmptyDeeper(t *testing.T) {
	r := newRig(t, nil)
	_, rec := startCache(t, r.c, "/test/foo/bar")
	rec.next(t, "INITIALIZED")
	r.creates("/test", "/test/foo")
	rec.none(t)
	r.create("/test/foo/bar", "")
	rec.next(t, "NODE_CREATED /test/foo/bar=")
	rec.none(t)
}

// TestCacheDepth0 is a port of TestTreeCache.testDepth0: WithSingleNode.
func TestCacheDepth0(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.create("/test/1", "one")
	r.create("/test/2", "two")
	r.create("/test/3", "three")
	r.create("/test/2/sub", "two-sub")
	ch, rec := startCache(t, r.c, "/test", cache.WithSingleNode())
	rec.next(t, "NODE_CREATED /test=", "INITIALIZED")
	rec.none(t)
	require.Empty(t, ch.Children("/test"))
	_, ok := ch.Get("/test/1")
	require.False(t, ok)
	require.Empty(t, ch.Children("/test/1"))
	_, ok = ch.Get("/test/non_exist")
	require.False(t, ok)

	// Children come and go unseen; the node's own changes are seen.
	r.create("/test/4", "four")
	r.del("/test/1")
	rec.none(t)
	r.set("/test", "new")
	rec.next(t, "NODE_CHANGED /test=new")
	require.Equal(t, 1, ch.Len())
}

// TestCacheDepth1 is a port of TestTreeCache.testDepth1: WithDepth(1), the
// root and its children (Curator's PathChildrenCache).
func TestCacheDepth1(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.create("/test/1", "one")
	r.create("/test/2", "two")
	r.create("/test/3", "three")
	r.create("/test/2/sub", "two-sub")
	ch, rec := startCache(t, r.c, "/test", cache.WithDepth(1))
	rec.next(t, "NODE_CREATED /test=")
	rec.nextSet(t, "NODE_CREATED /test/1=one", "NODE_CREATED /test/2=two", "NODE_CREATED /test/3=three")
	rec.next(t, "INITIALIZED")
	rec.none(t)
	require.Equal(t, []string{"1", "2", "3"}, names(ch.Children("/test")))
	require.Empty(t, ch.Children("/test/1"))
	require.Empty(t, ch.Children("/test/2"))
	_, ok := ch.Get("/test/2/sub")
	require.False(t, ok)
	require.Empty(t, ch.Children("/test/non_exist"))

	// Below the depth nothing is seen.
	r.create("/test/2/sub2", "x")
	r.set("/test/2/sub", "y")
	rec.none(t)
	r.set("/test/2", "two!")
	rec.next(t, "NODE_CHANGED /test/2=two!")
}

// TestCacheDepth1Deeper is a port of TestTreeCache.testDepth1Deeper.
func TestCacheDepth1Deeper(t *testing.T) {
	r := newRig(t, nil)
	r.creates("/test", "/test/foo", "/test/foo/bar")
	r.create("/test/foo/bar/1", "one")
	r.create("/test/foo/bar/2", "two")
	r.create("/test/foo/bar/3", "three")
	r.create("/test/foo/bar/2/sub", "two-sub")
	_, rec := startCache(t, r.c, "/test/foo/bar", cache.WithDepth(1))
	rec.next(t, "NODE_CREATED /test/foo/bar=bar")
	rec.nextSet(t, "NODE_CREATED /test/foo/bar/1=one", "NODE_CREATED /test/foo/bar/2=two", "NODE_CREATED /test/foo/bar/3=three")
	rec.next(t, "INITIALIZED")
	rec.none(t)
}

// TestCacheAsyncInitialPopulation is a port of
// TestTreeCache.testAsyncInitialPopulation.
func TestCacheAsyncInitialPopulation(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.create("/test/one", "hey there")
	_, rec := startCache(t, r.c, "/test")
	rec.next(t, "NODE_CREATED /test=", "NODE_CREATED /test/one=hey there", "INITIALIZED")
	rec.none(t)
}

// TestCacheSyncInitialPopulation is a port of
// TestTreeCache.testSyncInitialPopulation: the nodes come after the load.
func TestCacheSyncInitialPopulation(t *testing.T) {
	r := newRig(t, nil)
	_, rec := startCache(t, r.c, "/test")
	rec.next(t, "INITIALIZED")
	r.create("/test", "")
	r.create("/test/one", "hey there")
	rec.next(t, "NODE_CREATED /test=", "NODE_CREATED /test/one=hey there")
	rec.none(t)
}

// TestCacheChildrenInitialized is a port of
// TestTreeCache.testChildrenInitialized.
func TestCacheChildrenInitialized(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.creates("/test/1", "/test/2", "/test/3")
	_, rec := startCache(t, r.c, "/test")
	rec.next(t, "NODE_CREATED /test=")
	rec.nextSet(t, "NODE_CREATED /test/1=1", "NODE_CREATED /test/2=2", "NODE_CREATED /test/3=3")
	rec.next(t, "INITIALIZED")
	rec.none(t)
}

// TestCacheUpdateWhenNotCachingData is a port of
// TestTreeCache.testUpdateWhenNotCachingData (and of TestCuratorCache's and
// TestPathChildrenCache's tests of that name): WithoutData keeps no data
// but still tells every write by a Changed event.
func TestCacheUpdateWhenNotCachingData(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	ch, rec := startCache(t, r.c, "/test", cache.WithoutData())
	rec.next(t, "NODE_CREATED /test=", "INITIALIZED")
	r.create("/test/foo", "first")
	rec.next(t, "NODE_CREATED /test/foo=")
	r.set("/test/foo", "something new")
	rec.next(t, "NODE_CHANGED /test/foo=")
	// The same data written again is a write all the same.
	r.set("/test/foo", "something new")
	rec.next(t, "NODE_CHANGED /test/foo=")
	rec.none(t)
	n, ok := ch.Get("/test/foo")
	require.True(t, ok)
	require.Nil(t, n.Data)
	require.EqualValues(t, 2, n.Stat.Version)
	require.NotZero(t, n.Stat.Mzxid)
}

// TestCacheDeleteThenCreate is a port of TestTreeCache.testDeleteThenCreate.
func TestCacheDeleteThenCreate(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.create("/test/foo", "one")
	_, rec := startCache(t, r.c, "/test")
	rec.next(t, "NODE_CREATED /test=", "NODE_CREATED /test/foo=one", "INITIALIZED")

	r.del("/test/foo")
	rec.next(t, "NODE_DELETED /test/foo=one")
	r.create("/test/foo", "two")
	rec.next(t, "NODE_CREATED /test/foo=two")

	r.del("/test/foo")
	rec.next(t, "NODE_DELETED /test/foo=two")
	r.create("/test/foo", "two")
	rec.next(t, "NODE_CREATED /test/foo=two")
	rec.none(t)
}

// TestCacheDeleteThenCreateRoot is a port of
// TestTreeCache.testDeleteThenCreateRoot: the cache's own root goes and
// comes back, twice.
func TestCacheDeleteThenCreateRoot(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.create("/test/foo", "one")
	ch, rec := startCache(t, r.c, "/test/foo")
	rec.next(t, "NODE_CREATED /test/foo=one", "INITIALIZED")

	r.del("/test/foo")
	rec.next(t, "NODE_DELETED /test/foo=one")
	r.create("/test/foo", "two")
	rec.next(t, "NODE_CREATED /test/foo=two")

	r.del("/test/foo")
	rec.next(t, "NODE_DELETED /test/foo=two")
	r.create("/test/foo", "two")
	rec.next(t, "NODE_CREATED /test/foo=two")
	rec.none(t)

	// With children: the root's return brings them back too.
	r.create("/test/foo/kid", "k")
	rec.next(t, "NODE_CREATED /test/foo/kid=k")
	r.del("/test/foo/kid")
	r.del("/test/foo")
	rec.next(t, "NODE_DELETED /test/foo/kid=k", "NODE_DELETED /test/foo=two")
	r.create("/test/foo", "three")
	r.create("/test/foo/kid", "k2")
	rec.next(t, "NODE_CREATED /test/foo=three", "NODE_CREATED /test/foo/kid=k2")
	rec.none(t)
	require.Equal(t, map[string]string{"/test/foo": "three", "/test/foo/kid": "k2"}, rec.replayed())
	require.Equal(t, 2, ch.Len())
}

// TestCacheBasics is a port of TestTreeCache.testBasics.
func TestCacheBasics(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	ch, rec := startCache(t, r.c, "/test")
	rec.next(t, "NODE_CREATED /test=", "INITIALIZED")
	require.Empty(t, ch.Children("/test"))
	require.Empty(t, ch.Children("/t"))
	require.Empty(t, ch.Children("/testing"))

	r.create("/test/one", "hey there")
	rec.next(t, "NODE_CREATED /test/one=hey there")
	require.Equal(t, []string{"one"}, names(ch.Children("/test")))
	require.Equal(t, "hey there", data(t, ch, "/test/one"))
	require.Empty(t, ch.Children("/test/one"))
	require.Empty(t, ch.Children("/test/o"))
	require.Empty(t, ch.Children("/test/onely"))

	r.set("/test/one", "sup!")
	rec.next(t, "NODE_CHANGED /test/one=sup!")
	require.Equal(t, []string{"one"}, names(ch.Children("/test")))
	require.Equal(t, "sup!", data(t, ch, "/test/one"))

	r.del("/test/one")
	rec.next(t, "NODE_DELETED /test/one=sup!")
	require.Empty(t, ch.Children("/test"))
	rec.none(t)
}

// TestCacheBasicsOnTwoCaches is a port of
// TestTreeCache.testBasicsOnTwoCaches: two caches of one path on one
// client see the same events (the client's one stream serves both).
func TestCacheBasicsOnTwoCaches(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	ch, rec := startCache(t, r.c, "/test")
	ch2, rec2 := startCache(t, r.c, "/test")
	for _, x := range []*recorder{rec, rec2} {
		x.next(t, "NODE_CREATED /test=", "INITIALIZED")
	}
	r.create("/test/one", "hey there")
	rec.next(t, "NODE_CREATED /test/one=hey there")
	require.Equal(t, "hey there", data(t, ch, "/test/one"))
	rec2.next(t, "NODE_CREATED /test/one=hey there")
	require.Equal(t, "hey there", data(t, ch2, "/test/one"))

	r.set("/test/one", "sup!")
	rec.next(t, "NODE_CHANGED /test/one=sup!")
	rec2.next(t, "NODE_CHANGED /test/one=sup!")
	require.Equal(t, "sup!", data(t, ch2, "/test/one"))

	r.del("/test/one")
	rec.next(t, "NODE_DELETED /test/one=sup!")
	rec2.next(t, "NODE_DELETED /test/one=sup!")
	_, ok := ch2.Get("/test/one")
	require.False(t, ok)
	rec.none(t)
	rec2.none(t)
}

// TestCacheDeleteNodeAfterClose is a port of
// TestTreeCache.testDeleteNodeAfterCloseDoesntCallExecutor: after Close no
// event comes, and the subscription's channel is closed.
func TestCacheDeleteNodeAfterClose(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	ch, err := cache.New(r.c, "/test")
	require.NoError(t, err)
	events, cancel := ch.Events()
	defer cancel()
	rec := record(t, ch)
	require.NoError(t, ch.Start(r.ctx))
	rec.next(t, "NODE_CREATED /test=", "INITIALIZED")
	r.create("/test/one", "hey there")
	rec.next(t, "NODE_CREATED /test/one=hey there")

	require.NoError(t, ch.Close(r.ctx))
	r.del("/test/one")
	rec.none(t)
	for range events { // closed by Close (what was still queued is dropped): the loop ends
	}
	require.Zero(t, ch.Len(), "Close empties the view")
}

// TestCacheSlowSubscriber stands for TestTreeCache.testErrorListener (a Go
// subscriber does not throw): a subscriber that reads nothing for a while
// delays no other subscriber, and misses nothing.
func TestCacheSlowSubscriber(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	ch, err := cache.New(r.c, "/test")
	require.NoError(t, err)
	release := make(chan struct{})
	var got []string
	done := make(chan struct{})
	slow, stopSlow := ch.Events()
	defer stopSlow()
	go func() {
		<-release // blocked until the others have seen every event
		for ev := range slow {
			got = append(got, evString(ev))
			if len(got) == 4 {
				close(done)
			}
		}
	}()
	rec := record(t, ch)
	require.NoError(t, ch.Start(r.ctx))
	defer ch.Close(r.ctx)
	rec.next(t, "NODE_CREATED /test=", "INITIALIZED")
	r.set("/test", "hey there")
	rec.next(t, "NODE_CHANGED /test=hey there")
	r.set("/test", "again")
	rec.next(t, "NODE_CHANGED /test=again")
	close(release)
	require.True(t, itest.WaitClosed(done, 10*time.Second), "the slow subscriber did not get its 4 events")
	require.Equal(t, rec.all(), got)
}
