package election

import (
	"bytes"
	"context"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Observation is one leader seen by Observe.
type Observation struct {
	// Leader is the leader, or nil when there is none (nobody takes part,
	// or the leader resigned and nobody followed yet).
	Leader *Participant
	// Version is the data version of the election's node when it was read:
	// each Proclaim on the path raises it by one (see Term.Proclaim). Two
	// observations of one leader whose versions differ by more than one
	// had values between them that this observer did not read.
	Version int32
	// Time is when the observer read it.
	Time time.Time
}

// Observe follows the leader of the election at path (a Latch's or a
// Run's) until ctx ends. The channel first receives the current leader,
// then every change, in order, including "no leader" (a nil Leader), and
// is closed only when ctx ends. It holds one observation: a reader that
// falls behind gets the latest, never an older one after a newer. A change
// is a different leader node, or a new value the leader proclaimed (see
// Term.Proclaim; Participant.Value): each value read is sent once, in
// order. ZooKeeper keeps
// no history, so values a leader proclaimed and replaced between two reads
// are not seen (Observation.Version shows the gap); the last one is.
// Connection losses and new sessions are survived by reading again;
// changes that came and went while the observer was disconnected are not
// seen, the leader after them is.
func Observe(ctx context.Context, c *client.Client, path string) (<-chan Observation, error) {
	if ctx == nil {
		return nil, errs.Invalid("nil context")
	}
	if err := checkArgs(c, path); err != nil {
		return nil, err
	}
	out := make(chan Observation, 1)
	go observe(ctx, c, path, out)
	return out, nil
}

func observe(ctx context.Context, c *client.Client, path string, out chan Observation) {
	defer close(out)
	states, cancel := c.Subscribe()
	defer cancel()
	b := newBackoff()
	first := true
	var last *Participant
	for ctx.Err() == nil {
		r, err := leader(ctx, c, path, true)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			t := time.NewTimer(b.NextBackOff())
			select {
			case <-ctx.Done():
			case <-t.C:
			case _, ok := <-states:
				if !ok {
					states = nil
				}
			}
			t.Stop()
			continue
		}
		b.Reset()
		p := r.p
		var version int32
		if r.st != nil {
			version = r.st.Version
		}
		if first || !sameNode(last, p) || !sameValue(last, p) {
			first, last = false, p
			select {
			case <-out:
			default:
			}
			out <- Observation{Leader: p, Version: version, Time: time.Now()}
		}
		select {
		case <-ctx.Done():
		case <-r.kids:
		case <-r.data.Events():
		case _, ok := <-states:
			if !ok {
				states = nil
			}
		}
		r.stop()
	}
}

// sameValue reports whether a and b (the same node, or both nil) carry the
// same proclaimed value, none included.
func sameValue(a, b *Participant) bool {
	if a == nil || b == nil {
		return a == b
	}
	return (a.Value == nil) == (b.Value == nil) && bytes.Equal(a.Value, b.Value)
}

func sameNode(a, b *Participant) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Node == b.Node
}
