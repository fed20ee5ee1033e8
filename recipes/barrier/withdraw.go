package barrier

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// fail ends an Enter that did not pass: the member's node goes (withdraw
// when ctx ended, so that an opening that counted it is not undone), and
// the error says why.
func (e *entry) fail(ctx, octx context.Context, err error) error {
	d := e.d
	cctx, cancel := d.cleanupCtx()
	defer cancel()
	switch {
	case e.own == "":
		if octx.Err() != nil {
			return d.ended("enter", ctx)
		}
		return fmt.Errorf("zkrecipes: barrier %s: enter: %w", d.path, err)
	case errors.Is(err, errGone):
		_ = d.drop(cctx, e.own, e.sess)
		if errors.Is(e.sess.Err(), zkrecipes.ErrClosed) {
			return fmt.Errorf("zkrecipes: barrier %s: enter: %w", d.path, errs.ClientClosed)
		}
		if e.sess.Err() != nil {
			return fmt.Errorf("zkrecipes: barrier %s: enter: %w: %w", d.path, zkrecipes.ErrLost, zkrecipes.ErrSessionLost)
		}
		return fmt.Errorf("zkrecipes: barrier %s: enter: %w: node %s deleted", d.path, zkrecipes.ErrLost, e.own)
	case octx.Err() != nil && d.closing.Err() == nil:
		round, werr := e.withdraw(cctx)
		if werr == nil && round != 0 {
			d.pass(e, round)
			return nil
		}
		if werr != nil {
			return fmt.Errorf("zkrecipes: barrier %s: enter: %w (withdrawing: %w)", d.path, ctx.Err(), werr)
		}
		d.sweep(cctx)
		return d.ended("enter", ctx)
	default:
		return d.failed(cctx, ctx, octx, "enter", err, d.drop(cctx, e.own, e.sess))
	}
}

// withdraw deletes the member's node, after its ctx ended, in one
// transaction with a check that the barrier node's version is the one of
// the member's last listing: no Go member opened the barrier since. When
// the check fails, it looks again: a ready node made while the member's
// node existed means the barrier opened with it, and withdraw returns that
// round instead (the node stays: the member is in). When it cannot finish
// within ctx it falls back to the guaranteed delete (error wrapping
// zkrecipes.ErrDeletePending).
func (e *entry) withdraw(ctx context.Context) (int64, error) {
	d := e.d
	const tries = 8
	for range tries {
		if e.floor == 0 {
			break // never listed: no version to check against
		}
		_, err := d.c.Multi(ctx,
			&zk.CheckVersionRequest{Path: d.path, Version: e.version},
			&zk.DeleteRequest{Path: e.own, Version: -1})
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			return 0, nil // gone (ErrNoNode: already, with its session or a replay of this very delete)
		}
		if !errors.Is(err, zk.ErrBadVersion) {
			break
		}
		ok, rst, err := d.c.Exists(ctx, d.ready)
		if err != nil {
			break
		}
		if ok && rst.Czxid > e.floor {
			return rst.Czxid, nil
		}
		kids, st, err := d.c.Children(ctx, d.path)
		if err != nil || !slices.Contains(kids, e.name) {
			break
		}
		e.version = st.Version
	}
	return 0, d.drop(ctx, e.own, e.sess)
}

// bindSession returns a context that also ends when sess does, and its
// stop function.
func bindSession(ctx context.Context, sess *client.Session) (context.Context, func()) {
	sctx, cancel := context.WithCancel(ctx)
	stop := make(chan struct{})
	go func() {
		select {
		case <-sess.Done():
			cancel()
		case <-stop:
		}
	}()
	return sctx, func() {
		close(stop)
		cancel()
	}
}
