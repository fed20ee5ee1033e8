package election

import (
	"context"
	"errors"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
)

// releaseWithin bounds how long Run waits for a term's node delete before
// leaving it to the client's guaranteed delete.
const releaseWithin = 5 * time.Second

// Run is a leader loop: Curator's LeaderSelector, wire compatible with it
// (the mutex's "lock-" nodes under path, the participant id as data). It
// campaigns; once this participant leads, it calls lead with the term's
// context, cancelled the moment leadership may be gone (see Term.Context);
// once lead has returned, and only then, it deletes its node, so the next
// leader's term starts after this one's lead function returned. Then it
// campaigns again (with WithRunOnce it returns lead's error instead): the
// delete and the new node's create are one transaction, one write. An
// error from lead is logged and the loop goes on. Terms of one Run never
// overlap.
//
// Run returns ctx's error when ctx ends (a lead running then sees its
// context cancelled first, and Run waits for it to return; with
// WithRunOnce, once a term has started, Run returns lead's error even
// then), or an error wrapping zkrecipes.ErrClosed once the client is closed. Bad input (nil client, nil
// lead, invalid or relative path, nil option) fails at once with a typed
// error and nothing made on the server.
func Run(ctx context.Context, c *client.Client, path string, lead func(ctx context.Context, t *Term) error, opts ...Option) error {
	if ctx == nil {
		return errs.Invalid("nil context")
	}
	if err := checkArgs(c, path); err != nil {
		return err
	}
	if lead == nil {
		return errs.Invalid("nil lead function")
	}
	o, err := apply(opts)
	if err != nil {
		return err
	}
	q := lockq.New(c, path, markers...)
	req := request(LockName, o)
	b := newBackoff()
	// prev is the last term's holding: its node is deleted in the same
	// transaction that makes the next campaign's node (lockq.Requeue).
	var prev *lockq.Held
	defer func() {
		if prev != nil {
			release(c, prev)
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var held *lockq.Held
		var err error
		actx, done := access.StartAcquire(c, ctx, req.Recipe, path)
		if prev != nil {
			held, err = q.Requeue(actx, prev, req)
			prev = nil
		} else {
			held, err = q.Acquire(actx, req)
		}
		done(err)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, zkrecipes.ErrClosed) || errors.Is(err, zkrecipes.ErrInvalidArgument) {
				return err
			}
			sleep := b.NextBackOff()
			access.Logger(c).Debug("leader loop: campaign failed; trying again", "path", path, "err", err, "sleep", sleep)
			if !lockq.Sleep(ctx, sleep) {
				return ctx.Err()
			}
			continue
		}
		b.Reset()
		tok, err := held.Token(ctx)
		if err != nil || lockq.IsClosed(held.Lost()) {
			release(c, held)
			continue
		}
		sess := held.Session()
		t := newTerm(ctx, c, held.Path(), o.id, tok, sess)
		// The term ends the moment the holding may be gone (Interrupt and
		// ctx end it themselves).
		stop := held.AfterLost(func() { t.end(zkrecipes.ErrLost) })
		leadErr := lead(t.ctx, t)
		t.end(ErrResigned)
		stop()
		if o.runOnce {
			release(c, held)
			return leadErr
		}
		prev = held
		if leadErr != nil && !errors.Is(leadErr, context.Canceled) {
			access.Logger(c).Debug("leader loop: lead returned an error; campaigning again", "path", path, "err", leadErr)
		}
	}
}

// release deletes a holding's node (guaranteed delete, bounded wait). With
// no connection it goes straight to the background, where the client
// retries it at once on the reconnect rather than after a retry sleep.
func release(c *client.Client, held *lockq.Held) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseWithin)
	defer cancel()
	if lockq.IsClosed(c.Disconnected()) {
		cancel()
	}
	if err := held.Release(ctx); err != nil && !errors.Is(err, zkrecipes.ErrDeletePending) {
		access.Logger(c).Warn("leader loop: could not delete the node; it goes with its session", "node", held.Path(), "err", err)
	}
}
