package cache_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// One process keeps a cache of the services registered under a path (the
// path and its children: WithDepth(1)); another registers, updates and
// removes them. The cache's events tell each change, and Children shows
// the view at any time.
func ExampleCache() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	admin, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer admin.Close()
	watcher, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer watcher.Close()

	const dir = "/examples/cache/services"
	if _, err := admin.Create(ctx, dir+"/api", []byte("10.0.0.1:8080"), 0, client.WithParents()); err != nil {
		fmt.Println(err)
		return
	}

	ch, err := cache.New(watcher, dir, cache.WithDepth(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	events, stop := ch.Events() // before Start: the initial load's events too
	defer stop()
	// Close also when Start fails: the cache goes on loading until Close.
	defer ch.Close(ctx)
	if err := ch.Start(ctx); err != nil { // returns after the first full load
		fmt.Println(err)
		return
	}

	// next prints the cache's next event.
	next := func() {
		select {
		case ev := <-events:
			fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s %s", ev.Type, ev.Node.Path, ev.Node.Data)))
		case <-ctx.Done():
			fmt.Println("no event")
		}
	}
	next() // the directory
	next() // the api service
	next() // INITIALIZED

	admin.Set(ctx, dir+"/api", []byte("10.0.0.2:8080"), -1)
	next()
	admin.Create(ctx, dir+"/web", []byte("10.0.0.3:80"), 0)
	next()
	for _, n := range ch.Children(dir) {
		fmt.Println("cached:", n.Path, string(n.Data))
	}
	admin.Delete(ctx, dir+"/api", -1)
	next()

	admin.Delete(ctx, dir+"/web", -1)
	next()
	admin.Delete(ctx, dir, -1) // a container, made by Create with WithParents: the server may have reaped it already
	next()
	// Output:
	// NODE_CREATED /examples/cache/services
	// NODE_CREATED /examples/cache/services/api 10.0.0.1:8080
	// INITIALIZED
	// NODE_CHANGED /examples/cache/services/api 10.0.0.2:8080
	// NODE_CREATED /examples/cache/services/web 10.0.0.3:80
	// cached: /examples/cache/services/api 10.0.0.2:8080
	// cached: /examples/cache/services/web 10.0.0.3:80
	// NODE_DELETED /examples/cache/services/api 10.0.0.2:8080
	// NODE_DELETED /examples/cache/services/web 10.0.0.3:80
	// NODE_DELETED /examples/cache/services
}
