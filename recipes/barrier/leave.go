package barrier

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// leaving is one Leave call's state.
type leaving struct {
	d       *Double
	own     string
	name    string
	sess    *client.Session
	holding bool // the member's node is (as far as it knows) still there
	lost    bool // it was already gone when Leave began
}

// Leave leaves the barrier and waits until every member that was in it
// when Leave began has left. As in Curator, the members leave in the
// order of their node names, without a herd: the lowest keeps its node
// and waits for the highest to go, the others delete theirs at once and
// wait for the lowest, so that each departure wakes one member and the
// last one wakes the rest once. When all are gone, the ready node goes
// too, so the path can serve the next round.
//
// Members that enter after Leave began (the barrier is still open to late
// arrivals, as in Curator) are not waited for.
//
// When ctx ends (or Close is called) first, the member's node is deleted
// anyway (guaranteed delete; zkrecipes.ErrDeletePending if it goes on in the
// background) and the error wraps ctx's: the member is out, without
// having seen the others go.
//
// If the member's node was already gone when Leave began (its session was
// lost while it was in the barrier, or someone deleted the node), the
// others may have left without waiting for it: Leave still waits for them,
// then returns an error wrapping zkrecipes.ErrLost. Leave on a member that is not in
// returns an error wrapping ErrNotEntered. In every case the member is out
// once Leave returns: Enter may follow.
func (d *Double) Leave(ctx context.Context) error {
	if d.zero() {
		return errZeroDouble()
	}
	if err := d.take(ctx); err != nil {
		return err
	}
	defer d.give()
	if !d.entered {
		return fmt.Errorf("zkrecipes: barrier %s: leave: %w", d.path, ErrNotEntered)
	}
	octx, stop := withClose(ctx, d.closing)
	defer stop()
	l := &leaving{d: d, own: d.own, name: d.own[len(d.path)+1:], sess: d.sess, holding: true}
	err := l.run(octx)
	d.out()
	if err != nil {
		return l.fail(ctx, octx, err)
	}
	d.deleteReady(octx)
	if l.lost {
		return fmt.Errorf("zkrecipes: barrier %s: leave: %w: the node was gone before Leave", d.path, zkrecipes.ErrLost)
	}
	return nil
}

// run deletes the member's node and waits until every member of the first
// listing has gone.
func (l *leaving) run(ctx context.Context) error {
	d := l.d
	var first map[string]bool
	for {
		kids, _, err := d.c.Children(ctx, d.path)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		members := slices.DeleteFunc(kids, func(k string) bool { return k == readyName })
		slices.Sort(members)
		if first == nil {
			first = make(map[string]bool, len(members))
			for _, m := range members {
				first[m] = true
			}
			if !first[l.name] {
				l.lost, l.holding = true, false
			}
		}
		// Nodes made since Leave began belong to late arrivals, or to the
		// members of a next round: not waited for.
		members = slices.DeleteFunc(members, func(m string) bool { return !first[m] })
		if l.holding && !slices.Contains(members, l.name) {
			l.holding = false // its session was lost meanwhile: gone with it
		}
		var watch string
		switch {
		case len(members) == 0:
			return nil
		case l.holding && len(members) == 1: // only this member is left
			if err := l.release(ctx); err != nil {
				return err
			}
			continue
		case l.holding && members[0] == l.name:
			watch = members[len(members)-1] // the lowest waits for the highest
		default:
			if l.holding {
				if err := l.release(ctx); err != nil {
					return err
				}
			}
			watch = members[0] // the others wait for the lowest
		}
		if err := l.await(ctx, watch); err != nil {
			return err
		}
	}
}

// release deletes the member's own node.
func (l *leaving) release(ctx context.Context) error {
	if err := l.d.c.DeleteIfExists(ctx, l.own); err != nil {
		return err
	}
	l.holding = false
	return nil
}

// await waits until the member node name has gone (or changed, or its
// watch ended: the caller looks again), or ctx ends.
func (l *leaving) await(ctx context.Context, name string) error {
	_, _, w, err := l.d.c.GetWatch(ctx, l.d.child(name))
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	defer w.Stop()
	select {
	case <-w.Events():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fail ends a Leave that could not wait until the end: the member's node
// goes anyway, and the ready node too when nobody is left.
func (l *leaving) fail(ctx, octx context.Context, err error) error {
	d := l.d
	cctx, cancel := d.cleanupCtx()
	defer cancel()
	var derr error
	if l.holding {
		derr = d.drop(cctx, l.own, l.sess)
	}
	return d.failed(cctx, ctx, octx, "leave", err, derr)
}

// failed ends a call (op) that gave up its member's node (derr: the
// delete's error): the ready node goes too when nobody is left, and the
// error is ctx's when octx ended (ctx, or Close), else err, with derr
// beside it.
func (d *Double) failed(cctx, ctx, octx context.Context, op string, err, derr error) error {
	d.sweep(cctx)
	if octx.Err() != nil {
		err = d.ended(op, ctx)
	} else {
		err = fmt.Errorf("zkrecipes: barrier %s: %s: %w", d.path, op, err)
	}
	if derr != nil {
		return fmt.Errorf("%w (%w)", err, derr)
	}
	return err
}

// deleteReady deletes the ready node once a round is over, if it is the
// one this member passed (a newer one belongs to a round that opened
// without it). Best effort: a ready node left behind is found stale by the
// next member to arrive (see Enter).
func (d *Double) deleteReady(ctx context.Context) {
	ok, st, err := d.c.Exists(ctx, d.ready)
	if err != nil || !ok || st.Czxid != d.last {
		return
	}
	if err := d.c.Delete(ctx, d.ready, st.Version); err != nil && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrBadVersion) {
		access.Logger(d.c).Warn("barrier: could not delete the ready node", "path", d.ready, "err", err)
	}
}
