package counter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Increment adds 1: Add(ctx, 1).
func (c *Counter) Increment(ctx context.Context) (Result, error) { return c.Add(ctx, 1) }

// Decrement subtracts 1: Add(ctx, -1).
func (c *Counter) Decrement(ctx context.Context) (Result, error) { return c.Add(ctx, -1) }

// Subtract subtracts delta: Add(ctx, -delta).
func (c *Counter) Subtract(ctx context.Context, delta int64) (Result, error) {
	return c.Add(ctx, -delta)
}

// Add adds delta to the counter (wrapping around on overflow, as Java's
// long does) and returns the value before and after. A missing node counts
// as 0 and is made. On success the error is nil and Succeeded true. An error
// means the counter was not changed by this call, except a
// *MaybeAppliedError (errors.Is(err, ErrMaybeApplied)): then it may have
// been. Other writers winning every try gives ErrContention.
func (c *Counter) Add(ctx context.Context, delta int64) (Result, error) {
	return c.update(ctx, "add", plan{f: func(r reading) (int64, bool) { return r.value + delta, true }, create: true})
}

// TrySet writes n by compare-and-set, under the same tries as Add, whatever
// the value was: Curator's trySet. Data that is no counter is overwritten
// (PreValue is then 0).
func (c *Counter) TrySet(ctx context.Context, n int64) (Result, error) {
	return c.update(ctx, "try set", plan{f: func(reading) (int64, bool) { return n, true }, create: true, overwrite: true})
}

// CompareAndSet writes n if the counter holds expected, in one try, as
// Curator's compareAndSet: Succeeded is false, with a nil error, when it
// holds something else, when the node is missing (a counter never written
// is not 0 here: Initialize it first), or when another writer changed it
// between this call's read and its write. Errors are as Add's.
func (c *Counter) CompareAndSet(ctx context.Context, expected, n int64) (Result, error) {
	if c.zero() {
		return Result{Version: -1}, errZero()
	}
	if err := c.enter(ctx); err != nil {
		return Result{Version: -1}, c.wrap("compare and set", err)
	}
	defer c.leave()
	res := Result{Version: -1}
	start := time.Now()
	p := plan{f: func(r reading) (int64, bool) { return n, r.exists && r.value == expected }}
	err := c.tries(ctx, &res, p, nil, &res.Stats.OptimisticTries)
	res.Stats.OptimisticTime = time.Since(start)
	if errors.Is(err, errLost) {
		err = nil
	}
	return res, err
}

// plan is what an update writes: f gives the value to write after
// reading r, and whether to write it; create makes a missing node (every
// update but CompareAndSet); overwrite writes over data that is no counter
// (TrySet).
type plan struct {
	f         func(r reading) (int64, bool)
	create    bool
	overwrite bool
}

// errLost ends a phase whose tries were all beaten by other writers.
var errLost = errors.New("lost every try")

// update runs one update: optimistic tries under the retry policy, then,
// if they all lost and a lock is configured, tries under the lock.
func (c *Counter) update(ctx context.Context, what string, p plan) (Result, error) {
	if c.zero() {
		return Result{Version: -1}, errZero()
	}
	if err := c.enter(ctx); err != nil {
		return Result{Version: -1}, c.wrap(what, err)
	}
	defer c.leave()
	res := Result{Version: -1}
	start := time.Now()
	err := c.tries(ctx, &res, p, c.policy, &res.Stats.OptimisticTries)
	res.Stats.OptimisticTime = time.Since(start)
	if errors.Is(err, errLost) && c.lock != nil {
		start = time.Now()
		err = c.promoted(ctx, &res, p)
		res.Stats.PromotedTime = time.Since(start)
	}
	if errors.Is(err, errLost) {
		return res, fmt.Errorf("zkrecipes: counter %s: %s: %w (%d optimistic tries, %d under the lock)",
			c.path, what, ErrContention, res.Stats.OptimisticTries, res.Stats.PromotedTries)
	}
	if err != nil && !errors.Is(err, ErrMaybeApplied) && !errors.Is(err, ErrBadData) && !errors.Is(err, ErrContention) {
		err = c.wrap(what, err)
	}
	return res, err
}

// tries tries until a write succeeds, f declines to write, an error, or the
// policy (nil: no retry) gives up (errLost). A try made with the version
// this handle remembered, which another writer had already replaced, is
// followed by a read and a fresh try that the policy does not count: the
// remembered version only saves the read, it never costs a retry.
// tried counts the writes sent.
func (c *Counter) tries(ctx context.Context, res *Result, p plan, policy retry.Policy, tried *int) error {
	var b backoff.BackOff
	for {
		done, stale, err := c.try(ctx, res, p, tried)
		switch {
		case err != nil:
			return err
		case done:
			return nil
		case stale:
			continue
		case policy == nil:
			return errLost
		}
		if b == nil {
			b = policy.NewBackOff()
		}
		d := b.NextBackOff()
		if d == backoff.Stop {
			return errLost
		}
		if !lockq.Sleep(ctx, d) {
			return ctx.Err()
		}
	}
}

// try makes one try: it reads the node unless it trusts the reading it
// remembers, makes it when it is missing (if p says so), and writes p's
// value conditionally on the version read. done means finished (written,
// or p declined on a fresh reading); stale that the try acted on a
// remembered reading that turned out old.
func (c *Counter) try(ctx context.Context, res *Result, p plan, tried *int) (done, stale bool, err error) {
	last, readFirst := c.recall()
	// A node remembered missing has version -1, which ZooKeeper takes for
	// "any version": writing over it would replace whatever another handle
	// made since. Only a remembered existing node is written over directly.
	cached := last.known && last.exists && !readFirst
	var s step
	switch {
	case cached:
		s.r = last
		if s.n, s.write = p.f(last); s.write {
			s.st, s.sent, s.err = c.setOnce(ctx, encode(s.n), last.version)
		}
	default:
		var fast bool
		if s, fast, err = c.readWrite(ctx, p); err != nil {
			return false, false, err
		}
		if fast {
			c.remember(s.r)
		} else if s, err = c.slowTry(ctx, p); errors.Is(err, errVanished) {
			return false, false, nil // deleted again at once: a lost try
		} else if err != nil {
			return false, false, err
		}
		if last.known && s.r.exists == last.exists && s.r.version == last.version {
			c.trust(true) // nobody wrote since: the remembered version would have done
		}
	}
	res.PreValue, res.PostValue, res.Version = s.r.value, s.r.value, s.r.version
	if !s.write {
		if cached {
			c.forget()
			return false, true, nil // check against a fresh reading
		}
		return true, false, nil
	}
	if s.sent {
		*tried++
	}
	switch err := s.err; {
	case err == nil:
		c.remember(reading{known: true, exists: true, value: s.n, version: s.st.Version})
		res.Succeeded, res.PostValue, res.Version = true, s.n, s.st.Version
		return true, false, nil
	case !s.sent:
		return false, false, err
	case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrSessionMoved):
		c.forget()
		if cached {
			c.trust(false) // others write between this handle's updates: read first from now on
		}
		return false, cached, nil
	case errors.Is(err, zk.ErrNoAuth), errors.Is(err, zk.ErrInvalidACL):
		return false, false, &client.ACLError{Op: "set", Path: c.path, Err: err} // never retried, as the client's own
	case refused(err):
		return false, false, err
	}
	c.forget()
	return false, false, &MaybeAppliedError{Path: c.path, Version: s.r.version, Value: s.n, Err: c.closedCause(s.err)}
}

// errVanished is slowTry's word for a node deleted again between its create
// and its read: a lost try.
var errVanished = errors.New("counter node deleted again at once")

// slowTry is a try's read and write one after the other, through the
// client (whose reads are retried under its policy), making the node first
// when it is missing: for what readWrite leaves to it.
func (c *Counter) slowTry(ctx context.Context, p plan) (step, error) {
	r, err := c.readFor(ctx, p.overwrite)
	if err != nil {
		return step{}, err
	}
	if !r.exists && p.create {
		if r, err = c.make(ctx, p.overwrite); err != nil {
			return step{}, err
		}
		if !r.exists {
			return step{}, errVanished
		}
	}
	s := step{r: r}
	if s.n, s.write = p.f(r); s.write {
		s.st, s.sent, s.err = c.setOnce(ctx, encode(s.n), r.version)
	}
	return s, nil
}

// closedCause is err, or, when the client has closed (the connection then
// fails the requests in flight with zk.ErrClosing), zkrecipes.ErrClosed with err's
// text.
func (c *Counter) closedCause(err error) error {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, cerr := c.cl.Conn(done); errors.Is(cerr, zkrecipes.ErrClosed) && !errors.Is(err, zkrecipes.ErrClosed) {
		return fmt.Errorf("%w (%v)", zkrecipes.ErrClosed, err)
	}
	return err
}

// readFor reads the node for an update; with overwrite, data that is no
// counter reads as 0 at its version.
func (c *Counter) readFor(ctx context.Context, overwrite bool) (reading, error) {
	r, err := c.read(ctx)
	if overwrite && errors.Is(err, ErrBadData) {
		return reading{known: true, exists: true, version: r.version}, nil
	}
	return r, err
}

// make creates the missing node empty (which reads as 0, so making it
// changes no value: a create whose reply was lost is harmless) with its
// parents, and returns the reading to write over: the empty node at
// version 0 if this call made it, else a fresh read.
func (c *Counter) make(ctx context.Context, overwrite bool) (reading, error) {
	_, err := c.cl.Create(ctx, c.path, nil, zk.FlagPersistent, client.WithParents())
	switch {
	case err == nil:
		r := reading{known: true, exists: true, version: 0}
		c.remember(r)
		return r, nil
	case errors.Is(err, zk.ErrNodeExists):
		return c.readFor(ctx, overwrite)
	}
	return reading{}, err
}

// promoted takes the lock and tries under it, as Curator's PromotedToLock.
func (c *Counter) promoted(ctx context.Context, res *Result, p plan) error {
	lctx, cancel := ctx, context.CancelFunc(func() {})
	if c.lockTimeout > 0 {
		lctx, cancel = context.WithTimeout(ctx, c.lockTimeout)
	}
	err := c.lock.Lock(lctx)
	cancel()
	switch {
	case err == nil:
	case ctx.Err() == nil && lctx.Err() != nil:
		return fmt.Errorf("zkrecipes: counter %s: %w: promoted lock %s not had within %v",
			c.path, ErrContention, c.lock.Path(), c.lockTimeout)
	default:
		return fmt.Errorf("promoted lock %s: %w", c.lock.Path(), err)
	}
	defer c.unlock(ctx)
	return c.tries(ctx, res, p, c.lockPolicy, &res.Stats.PromotedTries)
}

// unlockWait bounds the wait for the promoted lock's release; a release
// that takes longer goes on in the background (a guaranteed delete).
const unlockWait = 2 * time.Second

func (c *Counter) unlock(ctx context.Context) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockWait)
	defer cancel()
	if err := c.lock.Unlock(uctx); err != nil && !errors.Is(err, zkrecipes.ErrDeletePending) {
		access.Logger(c.cl).Warn("counter: releasing the promoted lock failed", "path", c.path, "lock", c.lock.Path(), "err", err)
	}
}
