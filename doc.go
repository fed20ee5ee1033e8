// Package zkrecipes holds what every package of the module shares: the
// sentinel errors (ErrClosed, ErrInvalidArgument, ErrLost, ...) that the
// client and every recipe wrap, declared once, so that
//
//	errors.Is(err, zkrecipes.ErrClosed)
//
// matches a closed client, cache, mutex or queue alike, and the
// *LockedError of a TryLock that found the lock held.
//
// The session manager is package client; the recipes (locks, election,
// semaphore, cache, ...) are under recipes/; the test server for users'
// own tests is zktest. docs/api.md's conventions section says what every
// recipe has in common: constructors that do no I/O, Option, Start(ctx),
// Close, Events and these errors.
package zkrecipes
