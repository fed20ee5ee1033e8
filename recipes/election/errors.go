package election

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/check"
)

// The errors of this package. The errors it shares with the others are
// zkrecipes' (ErrClosed, ErrInvalidArgument, ErrLost, ...).
var (
	// ErrNoLeader is returned by Leader when nobody takes part in the
	// election: the path is empty or does not exist.
	ErrNoLeader = errors.New("zkrecipes: no leader")
	// ErrInterrupted is the cause of a term's context ended by
	// Term.Interrupt.
	ErrInterrupted = errors.New("zkrecipes: leadership interrupted")
	// ErrNotLeader is wrapped by the error of a Proclaim on a term that has
	// ended, or whose node is gone (etcd's ErrElectionNotLeader).
	ErrNotLeader = errors.New("zkrecipes: not the leader")
	// ErrResigned is the cause of a term's context once its lead function
	// has returned (Run).
	ErrResigned = errors.New("zkrecipes: leader resigned")
)

// errZero is the error of every method of a zero Latch.
var errZero = fmt.Errorf("%w: zero value: make latches with NewLatch", zkrecipes.ErrInvalidArgument)

// checkArgs validates what every entry point takes: a client and an absolute
// path that is not the root.
func checkArgs(c *client.Client, path string) error {
	return check.ClientPath(c, path, "an election needs a directory of its own, not the root")
}
