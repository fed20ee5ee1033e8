package mutex

import (
	"context"
	"errors"
	"fmt"
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

// Lock waits until this handle holds every lock of the set, or ctx ends:
// it takes them one after another in the order of their paths, each as
// its own Lock does. All or nothing: if one fails (ctx ended, an error),
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

// TryLock takes every lock of the set if each is free, else fails at once
// with the first held one's *zkrecipes.LockedError (errors.Is(err,
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
	h, err := m.acquire(ctx, true)
	if err != nil {
		<-m.gate
		if errors.Is(err, errRetake) {
			return fmt.Errorf("zkrecipes: multi-lock: %w: %w", err, zkrecipes.ErrLost)
		}
		return err
	}
	m.setHeld(h)
	return nil
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

// releaseFirst unlocks the first n locks, last first, ignoring their
// errors (a lost one's Unlock still deletes its node).
func (m *Multi) releaseFirst(ctx context.Context, n int) {
	if n == 0 {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupWithin)
	defer cancel()
	for i := n - 1; i >= 0; i-- {
		_ = m.locks[i].Unlock(rctx)
	}
}

// Unlock releases every lock of the set, the last taken first, from any
// goroutine (zkrecipes.ErrNotHeld when the handle does not hold). Every
// lock is released even when some fail; the error joins theirs, each
// naming its path. After a loss (Lost closed) it releases all the same
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
	var errs []error
	for i := len(m.locks) - 1; i >= 0; i-- {
		if err := m.locks[i].Unlock(ctx); err != nil {
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
