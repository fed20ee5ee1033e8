package barrier

import (
	"context"
	"errors"
	"slices"

	"github.com/go-zookeeper/zk"
)

// notTwice sets the watch on the ready node and, while that node is the
// one of the opening this member passed last (it left, or gave up leaving,
// since), waits for it to go, before the member makes its node: so the
// member never passes one opening twice, and the members still in that
// round, which may be leaving, never wait for it. A ready node of that
// opening with none of its members left is deleted (a remnant, see late).
func (e *entry) notTwice(ctx context.Context) error {
	d := e.d
	for {
		ok, rst, err := d.armReady(ctx)
		if err != nil || !ok || d.last == 0 || rst.Czxid != d.last {
			return err
		}
		kids, _, err := d.c.Children(ctx, d.path)
		if err != nil {
			return err
		}
		older, err := e.older(ctx, rst, kids)
		if err != nil {
			return err
		}
		if older == "" {
			if err := e.dropReady(ctx, rst); err != nil {
				return err
			}
			continue
		}
		if err := e.wait(ctx, older); err != nil {
			return err
		}
	}
}

// late decides about a ready node rst that existed before this member
// first looked. It passes (as Curator's late arrivals do) when a member
// counted by that opening is still there, that is a node older than the
// ready node. A ready node with no older member left is a remnant of a
// round everyone has left (its last member was lost before it could
// delete it): late deletes it, and the caller counts again.
func (e *entry) late(ctx context.Context, rst *zk.Stat, kids []string) (pass bool, err error) {
	older, err := e.older(ctx, rst, kids)
	if err != nil || older != "" {
		return older != "", err
	}
	return false, e.dropReady(ctx, rst)
}

// older returns a member node among kids, other than this member's, made
// before the ready node rst, or "" when there is none.
func (e *entry) older(ctx context.Context, rst *zk.Stat, kids []string) (string, error) {
	d := e.d
	kids = slices.Clone(kids)
	slices.Sort(kids)
	for _, k := range kids {
		if k == e.name || k == readyName {
			continue
		}
		ok, st, err := d.c.Exists(ctx, d.child(k))
		if err != nil {
			return "", err
		}
		if ok && st.Czxid < rst.Czxid {
			return k, nil
		}
	}
	return "", nil
}

// dropReady deletes the ready node rst, a remnant; gone already is fine.
// If the ready node changed since rst was read (its watch fired), it is
// left alone: the caller looks again.
func (e *entry) dropReady(ctx context.Context, rst *zk.Stat) error {
	select {
	case <-e.d.readyWatch.Events():
		e.d.disarmReady()
		return nil
	default:
	}
	err := e.d.c.Delete(ctx, e.d.ready, rst.Version)
	if errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrBadVersion) {
		return nil
	}
	return err
}
