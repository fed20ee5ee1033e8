package election

import (
	"context"
	"errors"
	pathpkg "path"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
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
	// Value is what the leader proclaimed in this node's terms (see
	// Term.Proclaim); nil for the others, and until it proclaims.
	Value []byte
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
	if err := checkArgs(c, path); err != nil {
		return nil, err
	}
	ps, err := lockq.New(c, path, markers...).Participants(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Participant, 0, len(ps))
	for i, p := range ps {
		out = append(out, Participant{ID: string(p.Data), Node: p.Path, Token: p.Czxid, Leader: i == 0})
	}
	if len(out) > 0 {
		data, _, err := c.Get(ctx, path)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return nil, err
		}
		out[0].Value, _ = proclaimedBy(data, pathpkg.Base(out[0].Node))
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
	if err := checkArgs(c, path); err != nil {
		return Participant{}, err
	}
	r, err := leader(ctx, c, path, false)
	p := r.p
	if err != nil {
		return Participant{}, err
	}
	if p == nil {
		return Participant{}, ErrNoLeader
	}
	return *p, nil
}

// leaderRead is what leader read: the first existing node (nil when
// none), the election node's stat, and with watch set the watches to wait
// on.
type leaderRead struct {
	p     *Participant
	st    *zk.Stat        // the election node's, nil when it is missing
	kids  <-chan zk.Event // the next change of dir's children (or of its existence)
	kidsW *client.Watch   // the watch kids comes from (nil: none to give up)
	data  *client.Watch   // the next change of dir's data (a Proclaim); nil when dir is missing
}

// stop gives up r's watches, fired or not.
func (r *leaderRead) stop() {
	r.kidsW.Stop()
	r.data.Stop()
}

// watchKids sets r's children watch to w (giving up the one before).
func (r *leaderRead) watchKids(w *client.Watch) {
	r.kidsW.Stop()
	r.kidsW, r.kids = w, w.Events()
}

// leader reads the first existing node under dir, and the value it
// proclaimed. A listing whose nodes are all gone when read is taken again:
// no leader (a nil p) means a listing with none. With watch set it also
// watches dir's children (or its existence when it is missing) and dir's
// data.
func leader(ctx context.Context, c *client.Client, dir string, watch bool) (leaderRead, error) {
	var r leaderRead
	var kids []string
	var err error
	if watch {
		var w *client.Watch
		kids, _, w, err = c.ChildrenWatch(ctx, dir)
		r.watchKids(w)
	} else {
		kids, _, err = c.Children(ctx, dir)
	}
	if errors.Is(err, zk.ErrNoNode) {
		if !watch {
			return leaderRead{}, nil
		}
		ok, _, ew, err := c.ExistsWatch(ctx, dir)
		if err != nil {
			return leaderRead{}, err
		}
		if ok { // made meanwhile: look again at once
			ew.Stop()
			return leaderRead{kids: closedEvents()}, nil
		}
		r.watchKids(ew)
		return r, nil
	}
	if err != nil {
		r.stop()
		return leaderRead{}, err
	}
	var proclaimed []byte
	if watch {
		proclaimed, r.st, r.data, err = c.GetWatch(ctx, dir)
	} else {
		proclaimed, r.st, err = c.Get(ctx, dir)
	}
	switch {
	case errors.Is(err, zk.ErrNoNode): // deleted since the listing: no leader
		r.data.Stop()
		return leaderRead{kids: r.kids, kidsW: r.kidsW}, nil
	case err != nil:
		r.stop()
		return leaderRead{}, err
	}
	for {
		nodes := lockq.Sorted(kids, markers)
		for _, n := range nodes {
			p := pathpkg.Join(dir, n.Name)
			data, st, err := c.Get(ctx, p)
			if errors.Is(err, zk.ErrNoNode) {
				continue
			}
			if err != nil {
				r.stop()
				return leaderRead{}, err
			}
			r.p = &Participant{ID: string(data), Node: p, Token: st.Czxid, Leader: true}
			r.p.Value, _ = proclaimedBy(proclaimed, n.Name)
			return r, nil
		}
		if len(nodes) == 0 { // nobody takes part
			return r, nil
		}
		// Every node listed was gone when read: the listing is out of
		// date (the lead may have passed on several times meanwhile) and
		// says nothing of who leads now. List again, for as long as ctx
		// lasts: only an empty listing means no leader. The election
		// node's data read above stays: a value proclaimed since is newer
		// than that read, and fires the data watch set with it (watch).
		if err := ctx.Err(); err != nil {
			r.stop()
			return leaderRead{}, err
		}
		var again []string
		if watch {
			// The old listing's child watch has fired (a listed node
			// was deleted): this listing's replaces it, one at a time.
			var w *client.Watch
			again, _, w, err = c.ChildrenWatch(ctx, dir)
			if w != nil {
				r.watchKids(w)
			}
		} else {
			again, _, err = c.Children(ctx, dir)
		}
		switch {
		case errors.Is(err, zk.ErrNoNode): // the path went too: nobody takes part
			return r, nil
		case err != nil:
			r.stop()
			return leaderRead{}, err
		}
		kids = again
	}
}

func closedEvents() <-chan zk.Event {
	ch := make(chan zk.Event, 1)
	ch <- zk.Event{Type: zk.EventNotWatching}
	return ch
}
