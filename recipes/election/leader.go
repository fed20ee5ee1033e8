package election

import (
	"context"
	"errors"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/queue"
)

// Participant is one participant of an election, as its node shows it.
type Participant struct {
	// ID is the participant id (the node's data as text).
	ID string
	// Node is the node's path (relative to the client's namespace).
	Node string
	// Token is the node's creation zxid: the token its terms carry.
	Token int64
	// Leader reports that this node is the first in the queue.
	Leader bool
}

// Participants lists the participants of the election at path (a Latch's
// or a Run's) in queue order, the leader first, ids decoded. Nodes deleted
// between the listing and their read are left out (Curator's CURATOR-358),
// so the first one listed is the one Leader names. A missing path has
// none.
func Participants(ctx context.Context, c *client.Client, path string) ([]Participant, error) {
	if ctx == nil {
		return nil, errs.Invalid("nil context")
	}
	if err := check(c, path); err != nil {
		return nil, err
	}
	ps, err := queue.New(c, path, markers...).Participants(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Participant, 0, len(ps))
	for i, p := range ps {
		out = append(out, Participant{ID: string(p.Data), Node: p.Path, Token: p.Czxid, Leader: i == 0})
	}
	return out, nil
}

// Leader returns the leader of the election at path: the first node in
// queue order that still exists when read. ErrNoLeader when the path is
// empty or missing (never a made-up participant, as Curator returns).
//
// The first node is who leads or is about to: a participant starts its
// term only after it has read that node and found it its live session's,
// and ends it the moment it may have lost it, so for a short while around
// a change the node named here and the participant's own view differ.
func Leader(ctx context.Context, c *client.Client, path string) (Participant, error) {
	if ctx == nil {
		return Participant{}, errs.Invalid("nil context")
	}
	if err := check(c, path); err != nil {
		return Participant{}, err
	}
	p, _, err := leader(ctx, c, path, false)
	if err != nil {
		return Participant{}, err
	}
	if p == nil {
		return Participant{}, ErrNoLeader
	}
	return *p, nil
}

// leader reads the first existing node under dir (nil when none). With
// watch set it also returns a channel that fires on the next change of
// dir's children, or of dir's existence when it is missing.
func leader(ctx context.Context, c *client.Client, dir string, watch bool) (*Participant, <-chan zk.Event, error) {
	var kids []string
	var ch <-chan zk.Event
	var err error
	if watch {
		kids, _, ch, err = c.ChildrenW(ctx, dir)
	} else {
		kids, _, err = c.Children(ctx, dir)
	}
	if errors.Is(err, zk.ErrNoNode) {
		if !watch {
			return nil, nil, nil
		}
		ok, _, ech, err := c.ExistsW(ctx, dir)
		if err != nil {
			return nil, nil, err
		}
		if ok { // made meanwhile: look again at once
			return nil, closedEvents(), nil
		}
		return nil, ech, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, n := range queue.Sorted(kids, markers) {
		p := path.Join(dir, n.Name)
		data, st, err := c.Get(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return &Participant{ID: string(data), Node: p, Token: st.Czxid, Leader: true}, ch, nil
	}
	return nil, ch, nil
}

func closedEvents() <-chan zk.Event {
	ch := make(chan zk.Event, 1)
	ch <- zk.Event{Type: zk.EventNotWatching}
	return ch
}
