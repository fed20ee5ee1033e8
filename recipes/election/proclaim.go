package election

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Proclaim publishes value as the leader's, without a new election (etcd's
// Election.Proclaim): its address, its epoch, whatever the leader wants
// followers and observers to know. Leader, Participants and Observe report
// it (Participant.Value) for as long as this node leads; the participant's
// id is unchanged. Only the term's leader can: Proclaim fails with an
// error wrapping ErrNotLeader once the term has ended (its context is
// cancelled), and the write itself is refused by the server once the
// leader's node is gone (the session that made it ended, or the leader
// resigned). Calls on one term land in the order they are made; each
// raises the election's version (Observation.Version) by one.
//
// # Where the value lives
//
// The value is written into the data of the election's own node (path, the
// parent of the participants' nodes) together with the name of the
// leader's node, in one transaction that first checks that the leader's
// node still exists: a deposed leader's node is gone, so its transaction
// fails whole; no other participant can have a node of that name. Readers
// attribute a value only to the leader whose node it names, so a new
// leader has no value until it proclaims one, and a leader that keeps its
// node across a reconnect keeps its value. Proclaim in every term that
// needs a value (a latch that lost its session leads again on a new node).
//
// It is not written into the leader's node, for Curator's sake: a Curator
// 5.4 LeaderLatch waiting behind the leader watches the leader's node and
// acts on its deletion only, so a data change there would spend its
// one-shot watch, and it would never learn that the leader left (our
// tests saw a Java latch never take over). Curator's participants read
// nothing in the election's node, so their ids, their order and their
// leadership are what they were; Curator's participants see no value.
//
// The client needs the WRITE permission on the election's node (see
// client.WithACLProvider); without it Proclaim returns the server's
// *client.ACLError.
func (t *Term) Proclaim(ctx context.Context, value []byte) error {
	if !t.made() || t.c == nil {
		return errs.Invalid("Proclaim on a nil or zero Term")
	}
	if ctx == nil {
		return errs.Invalid("nil context")
	}
	t.proclaimMu.Lock()
	defer t.proclaimMu.Unlock()
	if err := t.Err(); err != nil {
		return fmt.Errorf("zkrecipes: proclaim on %s: %w (the term ended: %w)", t.node, ErrNotLeader, err)
	}
	dir := path.Dir(t.node)
	_, err := t.c.Multi(ctx,
		&zk.CheckVersionRequest{Path: t.node, Version: -1},
		&zk.SetDataRequest{Path: dir, Data: encodeProclaimed(path.Base(t.node), value), Version: -1},
	)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("zkrecipes: proclaim on %s: %w (the node is gone)", t.node, ErrNotLeader)
	case err != nil:
		return fmt.Errorf("zkrecipes: proclaim on %s: %w", t.node, err)
	}
	return nil
}

// encodeProclaimed is the election node's data: the leader node's name, a
// newline, the value (node names have no newline).
func encodeProclaimed(node string, value []byte) []byte {
	out := make([]byte, 0, len(node)+1+len(value))
	out = append(out, node...)
	out = append(out, '\n')
	return append(out, value...)
}

// proclaimedBy returns the value in the election node's data if it names
// the node called leader; nil, false otherwise (another leader's value, or
// data that is none of ours).
func proclaimedBy(data []byte, leader string) ([]byte, bool) {
	name, value, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || string(name) != leader {
		return nil, false
	}
	return bytes.Clone(value), true
}
