package election

import (
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
)

// Option configures a Latch (NewLatch) or a leader loop (Run).
type Option func(*options) error

type options struct {
	id          string
	sessionOnly bool
	runOnce     bool
	closeMode   CloseMode
	listeners   []listener
}

// WithID sets the participant id, written as the node's data (UTF-8), as
// Curator's LeaderLatch and LeaderSelector write theirs. The default is
// the empty id (empty data), as in Curator.
func WithID(id string) Option {
	return func(o *options) error {
		o.id = id
		return nil
	}
}

// WithLostOnSessionLossOnly ends a term only when the session is lost (or
// the node deleted), not already when the connection is suspended. Fewer
// false alarms, but another participant may already lead by the time the
// term's context is cancelled. See the package documentation.
func WithLostOnSessionLossOnly() Option {
	return func(o *options) error {
		o.sessionOnly = true
		return nil
	}
}

// WithRunOnce makes Run return after its first term (its lead function's
// error), instead of campaigning again. NewLatch ignores it.
func WithRunOnce() Option {
	return func(o *options) error {
		o.runOnce = true
		return nil
	}
}

func apply(given []Option) (options, error) {
	var o options
	if err := option.Apply("election", &o, given); err != nil {
		return options{}, err
	}
	return o, nil
}

// The node names, as Curator spells them.
const (
	// LatchName is the marker of a Latch's nodes ("_c_<uuid>-latch-<seq>").
	LatchName = "latch-"
	// LockName is the marker of the nodes of Run (Curator's LeaderSelector,
	// an InterProcessMutex: "_c_<uuid>-lock-<seq>").
	LockName = "lock-"
)

// markers orders both layouts: a path holds one kind or the other.
var markers = []string{LatchName, LockName}

func request(marker string, o options) lockq.Request {
	recipe := client.RecipeLeader // Run
	if marker == LatchName {
		recipe = client.RecipeLatch
	}
	return lockq.Request{
		Recipe:                recipe,
		Marker:                marker,
		Data:                  []byte(o.id),
		Predicate:             lockq.Exclusive,
		Wait:                  true,
		LostOnSessionLossOnly: o.sessionOnly,
		ReadOwn:               true, // the term starts with token and owner known
	}
}
