package barrier

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"
	"github.com/google/uuid"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// entry is one Enter call's state.
type entry struct {
	d       *Double
	sess    *client.Session
	name    string // the member node's name (a fresh UUID per Enter)
	own     string // its path
	floor   int64  // the barrier's pzxid at the first listing after the create: a ready node with a greater czxid was made while own existed
	version int32  // the barrier node's data version at the last listing (an opening by a Go member raises it)
}

// errGone marks a member node found missing (lost) inside Enter's loop.
var errGone = errors.New("node gone")

// Enter enters the barrier and waits until it opens: it creates the
// member's node (an EPHEMERAL node named by a fresh UUID under the
// barrier's path; a missing path becomes a container, as in Curator) and
// returns nil once n members are in. The member that completes the count
// opens the barrier for all by creating the "ready" node; the others wait
// on that node alone, so an arrival wakes nobody.
//
// When ctx ends (or Close is called) first, the member withdraws: its node
// is deleted atomically with a check that the barrier has not opened since
// it last looked, so either nobody counted it, or the barrier opened with
// it and Enter returns nil (even though ctx ended: the others passed with
// this member counted). A create already under way when ctx ends is seen
// through first (within a session timeout), so that no node of this call
// can appear after Enter returned. If the delete cannot be done within a
// session timeout, the node is deleted in the background and the error
// wraps zkrecipes.ErrDeletePending as well as ctx's error.
//
// Enter rides out disconnections. If the member's session is lost (or its
// node deleted) while it waits, Enter returns an error wrapping zkrecipes.ErrLost:
// the barrier may have opened without it. Calling Enter again enters anew.
// Enter on a member that is in returns an error wrapping ErrEntered.
func (d *Double) Enter(ctx context.Context) error {
	if d.zero() {
		return errZeroDouble()
	}
	if err := d.take(ctx); err != nil {
		return err
	}
	defer d.give()
	if d.entered {
		return fmt.Errorf("zkrecipes: barrier %s: enter: %w (Leave first)", d.path, ErrEntered)
	}
	octx, stop := withClose(ctx, d.closing)
	defer stop()
	defer d.disarmReady()
	e := &entry{d: d}
	round, err := e.run(octx)
	if err != nil && e.sess != nil && e.sess.Err() != nil && octx.Err() == nil {
		err = errGone // the session ended (its loss cut short the call under way)
	}
	if err == nil {
		d.pass(e, round)
		return nil
	}
	return e.fail(ctx, octx, err)
}

// pass records that the member is in, past the opening round.
func (d *Double) pass(e *entry, round int64) {
	d.mu.Lock()
	d.entered, d.own, d.sess, d.round, d.last = true, e.own, e.sess, round, round
	d.mu.Unlock()
}

// run creates the member's node and waits until the barrier opens; it
// returns the opening's round.
func (e *entry) run(ctx context.Context) (int64, error) {
	d := e.d
	if err := d.clearStale(ctx); err != nil {
		return 0, err
	}
	sess, err := d.c.WaitSession(ctx)
	if err != nil {
		return 0, err
	}
	e.sess = sess
	// A member cut off from the ensemble learns of its session's loss at
	// once, not when a request gets through again.
	ctx, unbind := bindSession(ctx, sess)
	defer unbind()
	e.name = uuid.NewString()
	e.own = d.child(e.name)
	// As Curator: the watch on the ready node comes first, so that an
	// opening at any time after the create wakes this member. But not on
	// an opening this member passed already: that one it lets go first.
	if err := e.notTwice(ctx); err != nil {
		return 0, err
	}
	if err := e.create(ctx); err != nil {
		return 0, err
	}
	for {
		if sess.Err() != nil {
			return 0, errGone
		}
		ok, rst, err := d.armReady(ctx)
		if err != nil {
			return 0, err
		}
		if ok && e.floor != 0 && rst.Czxid > e.floor {
			return rst.Czxid, nil // opened while this member's node existed
		}
		kids, st, err := d.c.Children(ctx, d.path)
		if errors.Is(err, zk.ErrNoNode) || (err == nil && !slices.Contains(kids, e.name)) {
			return 0, errGone
		}
		if err != nil {
			return 0, err
		}
		if e.floor == 0 {
			e.floor = st.Pzxid
		}
		e.version = st.Version
		hasReady := slices.Contains(kids, readyName)
		members := slices.DeleteFunc(kids, func(k string) bool { return k == readyName })
		switch {
		case hasReady && !ok:
			continue // made since armReady looked: its event is on the way
		case hasReady:
			if rst.Czxid > e.floor {
				return rst.Czxid, nil
			}
			pass, err := e.late(ctx, rst, members)
			if err != nil || pass {
				return rst.Czxid, err
			}
			continue // the ready node was a remnant and is gone: count
		case len(members) >= d.n:
			if err := e.open(ctx, members); err != nil {
				return 0, err
			}
			continue
		}
		if err := e.wait(ctx, ""); err != nil {
			return 0, err
		}
	}
}

// create makes the member's node. It is not abandoned when ctx ends: a
// create left in flight (one that must first make the barrier's container
// parent, say) could land after Enter had withdrawn and returned, and an
// opening would count a member that believes it is out. So it runs to its
// end within a session timeout (as a withdraw does, see fail) and only then
// does ctx's end count: the node then exists, and the withdraw takes it.
func (e *entry) create(ctx context.Context) error {
	cctx, cancel := e.d.cleanupCtx()
	defer cancel()
	_, err := e.d.c.Create(cctx, e.own, e.d.data, zk.FlagEphemeral, client.WithParents())
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		// ErrNodeExists: a retry found the node its lost reply made (the
		// name is this call's own UUID).
		return err
	}
	return ctx.Err()
}

// armReady reports whether the ready node exists (and its stat), keeping
// one existence watch on it for the call: a watch that has not fired yet
// is kept (it fires on any later change), one that fired is set again. The
// call gives it up when it ends (disarmReady), so a member that waits and
// gives up leaves no watch behind.
func (d *Double) armReady(ctx context.Context) (bool, *zk.Stat, error) {
	if d.readyWatch != nil {
		select {
		case <-d.readyWatch.Events():
			d.disarmReady()
		default:
			ok, st, err := d.c.Exists(ctx, d.ready)
			return ok, st, err
		}
	}
	ok, st, w, err := d.c.ExistsWatch(ctx, d.ready)
	if err != nil {
		return false, nil, err
	}
	d.readyWatch = w
	return ok, st, nil
}

// disarmReady gives up the watch on the ready node, fired or not.
func (d *Double) disarmReady() {
	d.readyWatch.Stop()
	d.readyWatch = nil
}

// open is the count reaching n: it creates the ready node in one
// transaction with a check that each member counted still exists and with a
// write of the barrier node's own data (unchanged) that raises its version.
// The check makes a member that withdrew since the listing fail the
// opening; the version lets a member that withdraws see whether an opening
// happened since it last looked (see withdraw). A transaction that fails
// (a member gone, another member's opening first) is no error: the caller
// looks again.
func (e *entry) open(ctx context.Context, members []string) error {
	d := e.d
	data, st, err := d.c.Get(ctx, d.path)
	if err != nil {
		return err
	}
	ops := make([]any, 0, len(members)+2)
	for _, m := range members {
		ops = append(ops, &zk.CheckVersionRequest{Path: d.child(m), Version: -1})
	}
	ops = append(ops,
		&zk.SetDataRequest{Path: d.path, Data: data, Version: st.Version},
		&zk.CreateRequest{Path: d.ready})
	_, err = d.c.Multi(ctx, ops...)
	if err == nil || errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNodeExists) {
		return nil
	}
	return err
}

// wait waits for the ready node's watch to fire, or (when watch is not "")
// for the member node watch to go, or for the session to end, or ctx.
func (e *entry) wait(ctx context.Context, watch string) error {
	d := e.d
	var other <-chan zk.Event
	if watch != "" {
		_, _, w, err := d.c.GetWatch(ctx, d.child(watch))
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		defer w.Stop()
		other = w.Events()
	}
	select {
	case <-d.readyWatch.Events():
		d.disarmReady()
	case <-other:
	case <-e.sess.Done():
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
