package main

import (
	"context"
	"io"
	"testing"

	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// benchCacheTree creates a tree of leaves leaves (100 per parent, 100 bytes
// on every node) in a fresh directory of the package's shared server.
func benchCacheTree(b *testing.B, leaves int) (*env, cacheTree) {
	b.Helper()
	ctx := context.Background()
	e, err := openEnv(ctx, zkAddr, "", false, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.close)
	dir, err := e.runDir("bench-cache")
	if err != nil {
		b.Fatal(err)
	}
	tree := cacheTree{root: dir, leaves: leaves, fanout: 100, dataSize: 100}
	if err := tree.create(ctx, e.admin); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tree.remove(ctx, e.admin) })
	return e, tree
}

// benchCacheInit measures one load of the whole tree by a new cache on one
// session (its connection is up before the clock starts), per b.N.
func benchCacheInit(b *testing.B, leaves int, f cacheFlags) {
	ctx := context.Background()
	e, tree := benchCacheTree(b, leaves)
	c, err := startClient(ctx, e, defaultSession)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		ch, err := loadCache(ctx, c, f, tree)
		if err != nil {
			b.Fatal(err)
		}
		_ = ch.Close(ctx)
	}
	b.ReportMetric(float64(tree.nodes()), "nodes")
}

// BenchmarkCacheInit1k is the time to initialized of a 1,011-node tree.
func BenchmarkCacheInit1k(b *testing.B) { benchCacheInit(b, 1000, cacheFlags{}) }

// BenchmarkCacheInit10k is the time to initialized of a 10,101-node tree.
func BenchmarkCacheInit10k(b *testing.B) { benchCacheInit(b, 10000, cacheFlags{}) }

// BenchmarkCacheInit10kNoData is BenchmarkCacheInit10k with WithoutData.
func BenchmarkCacheInit10kNoData(b *testing.B) { benchCacheInit(b, 10000, cacheFlags{noData: true}) }

// BenchmarkCacheChange measures one setData (on a bare go-zookeeper
// session) until a cache on another session delivers its Changed event,
// per b.N.
func BenchmarkCacheChange(b *testing.B) {
	ctx := context.Background()
	e, tree := benchCacheTree(b, 100)
	c, err := startClient(ctx, e, defaultSession)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ch, err := cache.New(c, tree.root)
	if err != nil {
		b.Fatal(err)
	}
	defer ch.Close(ctx)
	events, cancel := ch.Events()
	defer cancel()
	if err := ch.Start(ctx); err != nil {
		b.Fatal(err)
	}
	for ev := range events {
		if ev.Type == cache.Initialized {
			break
		}
	}
	leaf := tree.leaf(0)
	data := make([]byte, tree.dataSize)
	version := int32(0)
	for b.Loop() {
		if _, err := e.admin.Set(leaf, data, version); err != nil {
			b.Fatal(err)
		}
		version++
		for ev := range events {
			if ev.Type == cache.Changed && ev.Node.Stat.Version == version {
				break
			}
		}
	}
}
