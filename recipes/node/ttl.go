package node

import (
	"context"
	"errors"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zookeeper/zk"
)

// touch keeps a TTL node alive as Curator's PersistentTtlNode does: it
// writes the node's TouchName child, or makes it (a TTL node itself, with
// the node's TTL) when it is missing. While the child lives the node has a
// child, so the server leaves it; the child's own writes keep the child.
// Neither the node's data nor its data watchers see anything. When the
// node itself is missing the touch does nothing: the keeper makes the node
// again, and the next touch makes the child.
func (k *keeper) touch(ctx context.Context) {
	n := k.n
	path := n.Path()
	if path == "" || k.czxid == 0 {
		return
	}
	child := path + "/" + TouchName
	stopCtx := ctx
	// A touch that cannot be made before the next one is due gives way to
	// it, so that the keeper is never held up by one (a lost connection).
	ctx, cancel := context.WithTimeout(ctx, max(n.o.ttl/2, minRetry))
	defer cancel()
	_, err := k.cl.Set(ctx, child, nil, -1)
	if errors.Is(err, zk.ErrNoNode) {
		// As in create: a create that Close abandoned could make the child
		// after Close deleted it, and the node could not be deleted then;
		// so it is given up only after Close, once the connection is lost.
		if _, err = k.cl.Conn(ctx); err == nil {
			run, stop := untilCut(stopCtx, k.cl)
			_, err = k.cl.Create(run, child, nil, zk.FlagTTL, client.WithTTL(n.o.ttl))
			stop()
		}
	}
	if err != nil && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrNodeExists) && ctx.Err() == nil {
		n.log.Debug("persistent node: touching the TTL node's child failed", "path", child, "err", err)
	}
}
