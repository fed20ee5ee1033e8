// Package bad breaks every convention checkshape knows.
package bad

import (
	"context"
	"log/slog"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
)

// Option has no error result.
type Option func(*options)

type options struct{}

// ProviderOption takes an exported type.
type ProviderOption func(*Settings) error

// Settings is exported.
type Settings struct{}

// Participant aliases an internal type.
type Participant = lockq.Participant

// ErrClosed re-exports a shared sentinel.
var ErrClosed = zkrecipes.ErrClosed

// WithLogger gives the recipe a logger of its own.
func WithLogger(l *slog.Logger) Option { return nil }

// Thing is a recipe handle.
type Thing struct{}

// Start takes no context.
func (t *Thing) Start() error { return nil }

// Close returns nothing.
func (t *Thing) Close() {}

// Events returns a send channel.
func (t *Thing) Events() (chan<- int, func()) { return nil, nil }

// Put takes its context second.
func (t *Thing) Put(item []byte, ctx context.Context) error { return nil }
