package lockq

import (
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/check"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
)

// Options are the settings of a lock handle. Users set the first three
// through their recipe's functional options (WithData,
// WithRevocationListener, WithLostOnSessionLossOnly); the rest are set by
// recipes only (the option type's argument lives in this internal package).
type Options struct {
	// Data is the lock nodes' data; nil means DefaultData.
	Data []byte
	// OnRevoke is the revocation listener.
	OnRevoke func()
	// LostOnSessionLossOnly makes Lost close only when the session is lost.
	LostOnSessionLossOnly bool

	// Marker is the handle's node marker (default "lock-").
	Marker string
	// Markers are all the markers that order the queue (default {Marker}).
	Markers []string
	// Predicate decides holding (default Exclusive).
	Predicate Predicate
	// Shared makes goroutines that share the handle share its holding
	// (the read side of a read/write lock); otherwise they exclude each other.
	Shared bool
	// Local is the local gate shared with another handle (the other side of
	// a read/write lock); nil means a gate of the handle's own.
	Local *Local
	// Made, if set, is called with the handle once it is made (the
	// read/write lock pairs its two sides with it).
	Made func(*Handle)
	// Recipe names the handle's waits and holdings to the client's hooks
	// (client.Hooks); client.RecipeMutex by default (the read/write lock
	// sets RecipeReadLock and RecipeWriteLock on its two sides).
	Recipe string
	// Unreported keeps the handle out of the hooks: a lock a recipe uses
	// inside (the semaphore's locks mutex) is not the application's.
	Unreported bool
}

// DefaultMarker is the mutex's node marker, as Curator names it.
const DefaultMarker = "lock-"

// prepare checks what every lock constructor must check (a client, a valid
// path that is not the root) and applies opts. It does no I/O.
func prepare[O ~func(*Options) error](c *client.Client, path string, options []O) (Options, error) {
	if err := check.ClientPath(c, path, "a lock needs a directory of its own, not the root"); err != nil {
		return Options{}, err
	}
	var o Options
	if err := option.Apply("lock "+path, &o, options); err != nil {
		return Options{}, err
	}
	if o.Data == nil {
		o.Data = DefaultData()
	}
	if o.Marker == "" {
		o.Marker = DefaultMarker
	}
	if len(o.Markers) == 0 {
		o.Markers = []string{o.Marker}
	}
	if o.Predicate == nil {
		o.Predicate = Exclusive
	}
	if o.Local == nil {
		o.Local = NewLocal()
	}
	switch {
	case o.Unreported:
		o.Recipe = ""
	case o.Recipe == "":
		o.Recipe = client.RecipeMutex
	}
	return o, nil
}
