package node

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// create makes the node with the latest data. A protected create
// (client.CreateProtected) finds its own node again after a lost reply
// and cleans up after itself when Close interrupts it. A plain create
// cannot be found again once abandoned, so Close does not abandon it
// while the client has a connection: the keeper waits for a connection
// (which Close may interrupt), then lets the create run to its end, so
// that a node it makes is known and deleted by Close. Once Close was
// called and the connection is lost, the create is given up (Close must
// not wait for a reconnect): the node it may have made is at its target
// path (madePath), which Close deletes (guaranteed). A plain create that
// finds a node at the path (zk.ErrNodeExists) leaves it to the next step
// to judge: the handle's own (a create whose reply was lost), a leftover
// of an earlier session, or another's.
func (k *keeper) create(ctx context.Context) error {
	n := k.n
	target, flags := k.target()
	data, gen := n.snapshot()
	k.made, k.madePath = true, ""
	if n.o.protect {
		var pn client.ProtectedNode
		var err error
		if n.o.ttlSet {
			pn, err = k.cl.CreateProtected(ctx, target, data, flags, client.WithTTL(n.o.ttl))
		} else {
			pn, err = k.cl.CreateProtected(ctx, target, data, flags)
		}
		if err != nil {
			return k.failed(err, gen)
		}
		if pn.Session != nil {
			k.remember(pn.Session)
		}
		k.madePath = pn.Path
		n.setPath(pn.Path, gen)
		return nil
	}
	if _, err := k.cl.Conn(ctx); err != nil {
		return err
	}
	k.madePath = target
	run, stop := untilCut(ctx, k.cl)
	defer stop()
	var p string
	var err error
	if n.o.ttlSet {
		p, err = k.cl.Create(run, target, data, flags, client.WithTTL(n.o.ttl), client.WithParents())
	} else {
		p, err = k.cl.Create(run, target, data, flags, client.WithParents())
	}
	switch {
	case err == nil:
		k.madePath = p
		n.setPath(p, gen)
	case errors.Is(err, zk.ErrNodeExists):
		n.setPath(target, 0)
	default:
		if run.Err() == nil && !retry.IsRetryable(err) {
			k.madePath = "" // the server's answer: no node made
		}
		return k.failed(err, gen)
	}
	return nil
}

// untilCut returns a context that outlives ctx (the keeper's, which Close
// ends) while the client has a connection: it ends once ctx has ended and
// the client is (or becomes) without a connection, or when stop is called.
// A request the keeper must see to its end (a plain create) runs under it,
// so that Close awaits it while it can finish, and never waits for a
// reconnect.
func untilCut(ctx context.Context, cl *client.Client) (run context.Context, stop func()) {
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-ctx.Done():
		case <-run.Done():
			return
		}
		select {
		case <-cl.Disconnected():
			cancel()
		case <-run.Done():
		}
	}()
	return run, cancel
}

// target is the path and flags of the next create, as Curator chooses
// them: the path given at first; then a node without protection is made
// again at the path it had, and a protected one under a new protected name
// (with the sequence number it got first, for a sequential mode: a node
// made again keeps its place in its parent's order).
func (k *keeper) target() (string, int32) {
	n := k.n
	flags := n.o.flags()
	last := n.Path()
	switch {
	case last == "":
		return n.base, flags
	case !n.o.protect:
		return last, again(flags)
	case n.o.mode.sequential():
		return n.base + seqSuffix(last), again(flags)
	}
	return n.base, flags
}

// seqSuffix is the 10-digit sequence number ZooKeeper appended to a
// sequential node's name ("" if path has none).
func seqSuffix(path string) string {
	const digits = 10
	if len(path) < digits {
		return ""
	}
	s := path[len(path)-digits:]
	if strings.Trim(s, "0123456789") != "" {
		return ""
	}
	return s
}

// abandon deletes a node the handle made in a session that is over
// (guaranteed, bound to that session: the server removes it anyway when it
// expires the session).
func (k *keeper) abandon(ctx context.Context, path string, sess *client.Session) {
	k.n.log.Debug("persistent node: deleting the node of a session that is over", "path", path,
		"session", fmt.Sprintf("0x%x", uint64(sess.ID())))
	if err := k.cl.DeleteGuaranteed(ctx, path, sess); err != nil && !errors.Is(err, zkrecipes.ErrDeletePending) {
		k.n.log.Warn("persistent node: deleting the node of a session that is over failed", "path", path, "err", err)
	}
}

// write writes the latest data to the node at path unless it holds it
// already. It reports whether the node settled (nothing more to write).
func (k *keeper) write(ctx context.Context, path string) (bool, error) {
	n := k.n
	data, gen, due := n.unwritten()
	if !due {
		return true, nil
	}
	_, err := k.cl.Set(ctx, path, data, -1)
	switch {
	case err == nil:
		n.markWritten(gen)
		_, _, due = n.unwritten()
		return !due, nil
	case errors.Is(err, zk.ErrNoNode):
		return false, nil // deleted meanwhile: the next step makes it again
	}
	return false, k.failed(err, gen)
}

// failed records err, a create or write with data generation gen that
// failed, as the handle's failure when the server refused it for good,
// and returns it.
func (k *keeper) failed(err error, gen uint64) error {
	n := k.n
	if retry.IsRetryable(err) || errors.Is(err, zkrecipes.ErrClosed) || n.stopCtx.Err() != nil ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	n.mu.Lock()
	n.failure = fmt.Errorf("zkrecipes: node %s: %w", n.base, err)
	n.failGen = gen
	n.changedLocked()
	n.mu.Unlock()
	return err
}

// snapshot returns the latest data and its generation.
func (n *Node) snapshot() ([]byte, uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.data, n.dataGen
}

// unwritten returns the latest data and its generation, and whether the
// node may not hold it yet.
func (n *Node) unwritten() ([]byte, uint64, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.data, n.dataGen, n.written < n.dataGen
}

// setPath records the path a create gave (or found taken), and gen, the
// data generation the node holds (0: unknown).
func (n *Node) setPath(path string, gen uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.path = path
	n.written = gen
	n.changedLocked()
}

// markWritten records that the node holds data generation gen.
func (n *Node) markWritten(gen uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.written = max(n.written, gen)
	n.failure = nil
	n.changedLocked()
}
