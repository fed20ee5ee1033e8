package lockq

import (
	"context"
	"sync"
)

// Local is the in-process gate in front of a handle's node: goroutines that
// share a handle wait here, as they would on a sync.Mutex (or, for the two
// sides of a read/write lock, a sync.RWMutex), before any node is made in
// ZooKeeper. It also guards the handles' holdings: one Local, one mutex, so
// the two sides of a read/write handle can look at each other without a race.
type Local struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change below

	writer         bool // an exclusive handle holds or is acquiring
	writersWaiting int  // exclusive Locks waiting for the gate
	readers        int  // read levels held or being acquired by a shared handle
}

// NewLocal returns an open gate.
func NewLocal() *Local { return &Local{changed: make(chan struct{})} }

// broadcastLocked wakes every goroutine waiting for a change.
func (l *Local) broadcastLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// waitLocked waits, with l.mu held on entry and on return, until ok() holds
// or ctx ends.
func (l *Local) waitLocked(ctx context.Context, ok func() bool) error {
	for !ok() {
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
			l.mu.Lock()
		case <-ctx.Done():
			l.mu.Lock()
			return ctx.Err()
		}
	}
	return nil
}

// enterExclusive admits one writer: no other writer, no readers.
func (l *Local) enterExclusiveLocked(ctx context.Context) error {
	l.writersWaiting++
	err := l.waitLocked(ctx, func() bool { return !l.writer && l.readers == 0 })
	l.writersWaiting--
	if err != nil {
		l.broadcastLocked() // readers held back by this writer may go
		return err
	}
	l.writer = true
	return nil
}

// exclusiveFree reports whether a writer would be admitted at once.
func (l *Local) exclusiveFreeLocked() bool { return !l.writer && l.readers == 0 }

// enterSharedLocked admits one reader level: no writer holds, none waits
// (so a stream of readers cannot starve the handle's writer).
func (l *Local) enterSharedLocked(ctx context.Context) error {
	if err := l.waitLocked(ctx, l.sharedFreeLocked); err != nil {
		return err
	}
	l.readers++
	return nil
}

func (l *Local) sharedFreeLocked() bool { return !l.writer && l.writersWaiting == 0 }

func (l *Local) leaveExclusiveLocked() {
	l.writer = false
	l.broadcastLocked()
}

func (l *Local) leaveSharedLocked(levels int) {
	l.readers -= levels
	l.broadcastLocked()
}
