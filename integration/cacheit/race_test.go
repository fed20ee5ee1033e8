package cacheit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// TestCacheRecreateWhileListing: a node deleted and made again in one
// transaction while its parent's listing is in flight (a sibling was just
// created), again and again, with readers calling Nodes all the while (so
// that the cache's loop often finds a reply and a notification waiting at
// once). The listing's reply, which shows the new node, comes after the
// notification of the old one's deletion; the cache must not let that
// notification take the new node out of its view. At the end the view and
// the replayed events equal the server's tree.
func TestCacheRecreateWhileListing(t *testing.T) {
	r := newRig(t, nil)
	r.create("/p", "")
	r.create("/p/x", "0")
	// A view large enough that Nodes takes a while: the loop, which
	// updates the view under the lock Nodes holds for reading, then finds
	// several replies and notifications waiting at once.
	r.create("/p/bulk", "")
	for b := range 3 {
		var ops []any
		for i := range 500 {
			ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("/p/bulk/%d-%d", b, i)})
		}
		_, err := r.c.Multi(r.ctx, ops...)
		require.NoError(t, err)
	}
	ch, rec := startCache(t, r.c, "/p")

	ctx, stop := context.WithCancel(r.ctx)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_ = ch.Nodes()
			}
		}()
	}
	for i := range 30 {
		r.create(fmt.Sprintf("/p/s%d", i), "")
		_, err := r.c.Multi(r.ctx,
			&zk.DeleteRequest{Path: "/p/x", Version: -1},
			&zk.CreateRequest{Path: "/p/x", Data: []byte(fmt.Sprint(i + 1))})
		require.NoError(t, err)
		// The cache reads the new node (and so watches it) before the next
		// round: the next deletion then has a watch to fire.
		itest.Eventually(t, 10*time.Second, fmt.Sprintf("/p/x at %d", i+1), func() bool {
			n, ok := ch.Get("/p/x")
			return ok && string(n.Data) == fmt.Sprint(i+1)
		})
	}
	stop()
	wg.Wait()
	converge(t, ch, rec, r.c, "/p", 10*time.Second)
}
