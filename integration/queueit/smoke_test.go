package queueit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/integration/zkharness"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

func TestSmoke(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zkharness.Cluster) {
		itest.NoLeaks(t)
		ns := itest.Namespace(t)
		c := connect(t, cl, ns)
		ctx := itest.Ctx(t, time.Minute)
		for _, safe := range []bool{false, true} {
			var opts []queue.Option
			if safe {
				opts = append(opts, queue.WithLockPath("/locks"))
			}
			q, err := queue.New(c, "/q"+strconv.FormatBool(safe), opts...)
			require.NoError(t, err)
			closeAtEnd(t, q.Close)
			got := newConsumed()
			consuming(t, func(ctx2 context.Context) error { return q.Consume(ctx2, got.handler()) })
			for i := range 20 {
				require.NoError(t, q.Put(ctx, []byte(strconv.Itoa(i))))
			}
			items := got.wait(t, 20, 20*time.Second)
			for i, s := range items {
				require.Equal(t, strconv.Itoa(i), s)
			}
		}
	})
}
