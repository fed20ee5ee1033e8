package client

import (
	"context"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zookeeper/zk"
)

// TestAccessOnZeroClient: what the recipes reach through internal/access
// works on a nil and a zero Client (a recipe handed one must not panic).
func TestAccessOnZeroClient(t *testing.T) {
	for name, c := range map[string]*Client{"nil": nil, "zero": {}} {
		if access.Logger(c) == nil {
			t.Errorf("%s client: nil logger", name)
		}
		if access.RetryPolicy(c) == nil {
			t.Errorf("%s client: nil retry policy", name)
		}
		ctx := context.Background()
		wctx, done := access.StartAcquire(c, ctx, RecipeMutex, "/p")
		if wctx != ctx || done == nil {
			t.Errorf("%s client: StartAcquire gave another context or no func", name)
		}
		done(nil)
		access.Held(c, RecipeMutex, "/p", time.Now())
		access.Released(c, RecipeMutex, "/p", time.Now(), false)
		access.CacheEvent(c, "/c", "NODE_CREATED")
	}
}

// TestAccessReportsThroughHooks: the accessors reach the client's hooks.
func TestAccessReportsThroughHooks(t *testing.T) {
	var acquired, held, released, cached int
	h := &Hooks{
		Acquire: func(ctx context.Context, a Acquisition) (context.Context, func(AcquireOutcome)) {
			acquired++
			return ctx, func(AcquireOutcome) {}
		},
		Held:       func(Holding) { held++ },
		Released:   func(Release) { released++ },
		CacheEvent: func(CacheEventHook) { cached++ },
	}
	c, err := New(WithServers("127.0.0.1:1"), WithHooks(h))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, done := access.StartAcquire(c, context.Background(), RecipeMutex, "/p")
	done(nil)
	access.Held(c, RecipeMutex, "/p", time.Now())
	access.Released(c, RecipeMutex, "/p", time.Now(), true)
	access.CacheEvent(c, "/c", zk.EventNodeCreated.String())
	if acquired != 1 || held != 1 || released != 1 || cached != 1 {
		t.Errorf("acquired %d, held %d, released %d, cache events %d; want 1 each", acquired, held, released, cached)
	}
}
