package queue

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// Options are the settings every lock recipe accepts through its own
// functional options (WithData, WithRevocationListener,
// WithLostOnSessionLossOnly).
type Options struct {
	// Data is the lock nodes' data; nil means DefaultData.
	Data []byte
	// OnRevoke is the revocation listener.
	OnRevoke func()
	// SessionOnly makes Lost close only when the session is lost.
	SessionOnly bool
}

// Prepare checks what every lock constructor must check (a client, a valid
// path that is not the root), applies opts, and returns the request every
// acquisition of that lock starts from. It does no I/O.
func Prepare[O ~func(*Options)](c *client.Client, path string, opts []O) (Request, error) {
	if c == nil {
		return Request{}, fmt.Errorf("%w: nil client", client.ErrInvalidArgument)
	}
	if err := client.ValidatePath(path); err != nil {
		return Request{}, err
	}
	if path == "/" {
		return Request{}, &client.PathError{Path: path, Reason: "a lock needs a directory of its own, not the root"}
	}
	var o Options
	for _, opt := range opts {
		if opt == nil {
			return Request{}, fmt.Errorf("%w: nil option", client.ErrInvalidArgument)
		}
		opt(&o)
	}
	if o.Data == nil {
		o.Data = DefaultData()
	}
	return Request{Data: o.Data, Wait: true, LostOnSessionLossOnly: o.SessionOnly, OnRevoke: o.OnRevoke}, nil
}
