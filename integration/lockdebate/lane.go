package lockdebate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Bounds of one round's steps.
const (
	// takeOverTimeout bounds B's wait for the lock while A is stopped: A's
	// lease or session must end well within it.
	takeOverTimeout = time.Minute
	// replyTimeout bounds each answer of A's process.
	replyTimeout = 2 * time.Minute
)

// playLane plays cfg.Rounds rounds of one lock: A in a process of its own,
// B here.
func (cfg *PauseConfig) playLane(ctx context.Context, spec laneSpec) (_ Tally, err error) {
	tally := Tally{Kind: spec.Kind}
	a, err := startHolder(ctx, holderSpec{laneSpec: spec, Session: cfg.Session})
	if err != nil {
		return tally, err
	}
	defer func() { err = errors.Join(err, a.close()) }()
	b, err := openContender(ctx, spec, "B", steadySession, cfg.Logger)
	if err != nil {
		return tally, err
	}
	defer func() { err = errors.Join(err, b.close()) }()

	var pauses []time.Duration
	for n := 1; tally.Rounds < cfg.Rounds; n++ {
		if tally.Replayed > cfg.Rounds {
			return tally, fmt.Errorf("the holder lost its lock before the pause in %d rounds: the machine is too busy for a %v lease", tally.Replayed, cfg.Lease)
		}
		r, played, err := playRound(ctx, a, b, n)
		if err != nil {
			return tally, fmt.Errorf("round %d: %w", n, err)
		}
		if !played {
			tally.Replayed++
			continue
		}
		tally.Rounds++
		if r.Overlap {
			tally.Overlaps++
		}
		if r.StaleAccepted {
			tally.StaleAccepted++
		} else {
			tally.StaleRefused++
		}
		pauses = append(pauses, r.Paused)
		if cfg.Progress != nil {
			cfg.Progress(r)
		}
	}
	slices.Sort(pauses)
	tally.MedianPause = pauses[len(pauses)/2]
	return tally, nil
}

// playRound is one round. played is false when A had lost the lock before
// it could be paused (nothing to show; the caller plays again).
func playRound(ctx context.Context, a *holderProc, b *contender, n int) (r Round, played bool, err error) {
	r = Round{Kind: b.kind, N: n}
	start, err := b.res.lastSeq(ctx)
	if err != nil {
		return r, false, err
	}

	// A takes the lock, writes, and checks it still holds it.
	if err := a.send(command{Op: "acquire", Round: n}); err != nil {
		return r, false, err
	}
	checked, err := a.expect(ctx, "checked", replyTimeout)
	if err != nil || !checked.Held {
		return r, false, err
	}
	r.TokenA = checked.Token

	// The pause: A's whole process stops right after its check. Its next
	// command waits in the pipe: A writes the moment it runs again.
	if err := a.pause(); err != nil {
		return r, false, err
	}
	paused := time.Now()
	if err := a.send(command{Op: "write", Round: n}); err != nil {
		return r, false, errors.Join(err, a.resume())
	}

	// B takes the same lock, once A's lease or session has run out, and writes.
	bl := b.newLock()
	if err := takeOver(ctx, b, bl, n, &r); err != nil {
		return r, false, errors.Join(err, a.resume())
	}

	// A runs again and writes at once, still believing its check.
	r.Paused = time.Since(paused)
	if err := a.resume(); err != nil {
		return r, false, err
	}
	wrote, err := a.expect(ctx, "wrote", replyTimeout)
	if err != nil {
		return r, false, err
	}
	r.StaleAccepted = wrote.Accepted
	if err := releaseB(ctx, bl); err != nil {
		return r, false, err
	}

	// What the storage saw, checked against what A was told.
	writers, err := b.res.history(ctx, start)
	if err != nil {
		return r, false, err
	}
	r.Overlap = overlapping(writers)
	aLast := len(writers) > 0 && writers[len(writers)-1] == writerName("A", n)
	if !slices.Contains(writers, b.writer(n)) || aLast != wrote.Accepted {
		return r, false, fmt.Errorf("the resource's history %q does not match the holder's report (accepted %v)", writers, wrote.Accepted)
	}
	return r, true, nil
}

// takeOver is B's side of a round: take the lock and write under it.
func takeOver(ctx context.Context, b *contender, l lockHandle, n int, r *Round) error {
	tctx, cancel := context.WithTimeout(ctx, takeOverTimeout)
	defer cancel()
	if err := l.acquire(tctx); err != nil {
		return fmt.Errorf("contender B did not get the lock while A was stopped: %w", err)
	}
	token, err := l.token(tctx)
	if err != nil {
		return errors.Join(fmt.Errorf("contender B's fencing token: %w", err), l.release(tctx))
	}
	r.TokenB = token
	ok, err := b.write(tctx, n, "write", token)
	if err == nil && !ok {
		err = fmt.Errorf("the resource refused B's write (token %d after A's %d)", token, r.TokenA)
	}
	if err != nil {
		return errors.Join(err, l.release(tctx))
	}
	return nil
}

// releaseB ends B's holding. B is never paused, but a Redis or MySQL lease
// may run out on a busy machine before A has written: that is no error. The
// mutex must release cleanly.
func releaseB(ctx context.Context, l lockHandle) error {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := l.release(rctx)
	if errors.Is(err, errNotOurs) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("contender B's release: %w", err)
	}
	return nil
}
