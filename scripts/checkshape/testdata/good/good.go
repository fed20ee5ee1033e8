// Package good keeps the conventions.
package good

import "context"

// Option configures a Thing.
type Option func(*options) error

type options struct{}

// ProviderOption configures a provider.
type ProviderOption func(*providerOptions) error

type providerOptions struct{}

// Thing is a recipe handle.
type Thing struct{}

// Start starts it.
func (t *Thing) Start(ctx context.Context) error { return nil }

// Close closes it.
func (t *Thing) Close(ctx context.Context) error { return nil }

// Events subscribes.
func (t *Thing) Events() (<-chan int, func()) { return nil, func() {} }

// Put puts.
func (t *Thing) Put(ctx context.Context, item []byte) error { return nil }
