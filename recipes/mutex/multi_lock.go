package mutex

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
)

// cleanupWithin bounds how long a failed acquire waits for the release of
// the locks it had taken (they are guaranteed deletes: what does not
// finish goes on in the background).
const cleanupWithin = 10 * time.Second

// errRetake says that a lock already taken was lost while the others were
// being taken: the set was released and is taken again.
var errRetake = errors.New("a lock of the set was lost while the others were taken")

// Lock waits until this handle holds every lock of the set, or ctx ends.
// It first tries every lock at once (TryLock, one round trip for the set;
// a try never waits, so it cannot deadlock) and keeps them if it got them
// all; else it releases those and takes the locks one after another in the
// order of their paths, each as its own Lock does (after a try that found
// a lock taken, the next few Locks go straight to that order). All or nothing: if one fails (ctx ended, an error),
// those already taken are released and the error names that lock's path.
// If a lock already taken may be gone before the set is complete (its
// Lost closed), the set is released and taken again. While another
// goroutine holds the handle, Lock waits for that goroutine's Unlock
// first.
func (m *Multi) Lock(ctx context.Context) error {
	if !m.valid() {
		return errMultiZero
	}
	select {
	case m.gate <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("zkrecipes: multi-lock: %w", ctx.Err())
	}
	if m.skipFast > 0 {
		m.skipFast--
	} else if h, ok := m.tryAll(ctx); ok {
		m.setHeld(h)
		return nil
	} else if ctx.Err() == nil {
		m.skipFast = skipFastAfterMiss
	}
	for {
		h, err := m.acquire(ctx, false)
		if err == nil {
			m.setHeld(h)
			return nil
		}
		if errors.Is(err, errRetake) && ctx.Err() == nil {
			select {
			case <-time.After(50 * time.Millisecond):
				continue
			case <-ctx.Done():
			}
		}
		<-m.gate
		if errors.Is(err, errRetake) {
			return fmt.Errorf("zkrecipes: multi-lock: %w", ctx.Err())
		}
		return err
	}
}

// TryLock takes every lock of the set if each is free (their TryLocks at
// once), else fails at once with the first held one's
// *zkrecipes.LockedError (errors.Is(err,
// zkrecipes.ErrLocked); Local when another goroutine holds this handle),
// after releasing those it had taken. It leaves no node behind.
func (m *Multi) TryLock(ctx context.Context) error {
	if !m.valid() {
		return errMultiZero
	}
	select {
	case m.gate <- struct{}{}:
	default:
		return fmt.Errorf("zkrecipes: multi-lock %v: %w", m.paths, &zkrecipes.LockedError{Local: true})
	}
	h, err := m.tryEach(ctx)
	if err != nil {
		<-m.gate
		return err
	}
	m.setHeld(h)
	return nil
}

// skipFastAfterMiss is how many Locks skip the try of every lock at once
// after one found a lock taken: under contention the try costs a create
// and a delete per lock and rarely wins.
const skipFastAfterMiss = 8

// tryAll tries every lock at once (their TryLocks in flight together, one
// round trip in all) and reports whether it holds them all. If not, it
// releases those it took: a try never waits, so it cannot deadlock, and
// the ordered path follows.
func (m *Multi) tryAll(ctx context.Context) (*multiHolding, bool) {
	h, err := m.tryEach(ctx)
	return h, err == nil
}

// tryEach runs every lock's TryLock at once. All or nothing: if any fails,
// those taken are released and the error is the first failure in path
// order.
func (m *Multi) tryEach(ctx context.Context) (*multiHolding, error) {
	errs := make([]error, len(m.locks))
	var wg sync.WaitGroup
	for i, l := range m.locks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.TryLock(ctx)
		}()
	}
	wg.Wait()
	var first error
	var taken []int
	for i, err := range errs {
		switch {
		case err == nil:
			taken = append(taken, i)
		case first == nil:
			first = fmt.Errorf("zkrecipes: multi-lock: lock %s: %w", m.paths[i], err)
		}
	}
	h := &multiHolding{lost: make(chan struct{}), quit: make(chan struct{})}
	if first == nil {
		for _, l := range m.locks {
			h.watch(l.Lost(), func(error) {})
		}
		if !isClosed(h.lost) {
			return h, nil
		}
		close(h.quit)
		h.wg.Wait()
		first = fmt.Errorf("zkrecipes: multi-lock: %w: %w", errRetake, zkrecipes.ErrLost)
	}
	m.release(ctx, taken)
	return nil, first
}

// release unlocks the locks at indexes, all at once, ignoring their errors
// (a lost one's Unlock still deletes its node).
func (m *Multi) release(ctx context.Context, indexes []int) {
	if len(indexes) == 0 {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupWithin)
	defer cancel()
	var wg sync.WaitGroup
	for _, i := range indexes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = m.locks[i].Unlock(rctx)
		}()
	}
	wg.Wait()
}

func (m *Multi) setHeld(h *multiHolding) {
	m.mu.Lock()
	m.held = h
	m.mu.Unlock()
}

// acquire takes every lock in order (TryLock when try is set). Each lock
// taken is watched: its loss closes the holding's Lost and cancels the
// wait for the locks after it. On failure every lock taken is released.
func (m *Multi) acquire(ctx context.Context, try bool) (*multiHolding, error) {
	h := &multiHolding{lost: make(chan struct{}), quit: make(chan struct{})}
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	taken := 0
	fail := func(err error) (*multiHolding, error) {
		close(h.quit)
		h.wg.Wait()
		m.releaseFirst(ctx, taken)
		return nil, err
	}
	for i, l := range m.locks {
		var err error
		if try {
			err = l.TryLock(wctx)
		} else {
			err = l.Lock(wctx)
		}
		if err != nil {
			if isClosed(h.lost) && ctx.Err() == nil {
				return fail(errRetake)
			}
			return fail(fmt.Errorf("zkrecipes: multi-lock: lock %s: %w", m.paths[i], err))
		}
		taken++
		h.watch(l.Lost(), cancel)
	}
	if isClosed(h.lost) {
		return fail(errRetake)
	}
	return h, nil
}

// watch closes h.lost (and cancels the acquire's wait) once lost closes,
// unless h.quit closes first.
func (h *multiHolding) watch(lost <-chan struct{}, cancel context.CancelCauseFunc) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		select {
		case <-lost:
			h.lostOnce.Do(func() { close(h.lost) })
			cancel(zkrecipes.ErrLost)
		case <-h.quit:
		}
	}()
}

// releaseFirst unlocks the first n locks.
func (m *Multi) releaseFirst(ctx context.Context, n int) {
	indexes := make([]int, n)
	for i := range indexes {
		indexes[i] = i
	}
	m.release(ctx, indexes)
}

// Unlock releases every lock of the set, all at once (their deletes in
// flight together), from any goroutine (zkrecipes.ErrNotHeld when the
// handle does not hold). Every lock is released even when some fail; the
// error joins theirs, each naming its path. After a loss (Lost closed) it releases all the same
// and the error wraps zkrecipes.ErrLost, as Mutex.Unlock's does; a delete
// that cannot finish within ctx goes on in the background
// (zkrecipes.ErrDeletePending).
func (m *Multi) Unlock(ctx context.Context) error {
	if !m.valid() {
		return errMultiZero
	}
	m.mu.Lock()
	h := m.held
	m.held = nil
	m.mu.Unlock()
	if h == nil {
		return fmt.Errorf("zkrecipes: multi-lock %v: %w", m.paths, zkrecipes.ErrNotHeld)
	}
	close(h.quit)
	h.wg.Wait()
	wasLost := isClosed(h.lost)
	h.lostOnce.Do(func() { close(h.lost) })
	each := make([]error, len(m.locks))
	var wg sync.WaitGroup
	for i, l := range m.locks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			each[i] = l.Unlock(ctx)
		}()
	}
	wg.Wait()
	var errs []error
	for i, err := range each {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.paths[i], err))
		}
	}
	<-m.gate
	if wasLost && !errors.Is(errors.Join(errs...), zkrecipes.ErrLost) {
		errs = append(errs, zkrecipes.ErrLost)
	}
	if len(errs) > 0 {
		return fmt.Errorf("zkrecipes: multi-lock unlock: %w", errors.Join(errs...))
	}
	return nil
}
