package lockdebate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// holderEnv marks the paused holder's process: PlayPause runs the current
// executable again with it set, and ServeHolderIfChild serves there.
const holderEnv = "ZKRECIPES_LOCKDEBATE_HOLDER"

// holderStep bounds each step of the holder (taking the lock, a write).
const holderStep = time.Minute

// command is what the referee tells the paused holder.
type command struct {
	Op    string // "acquire" or "write"
	Round int
}

// reply is what the holder answers.
type reply struct {
	Op       string // "ready", "checked", "wrote" or "error"
	Round    int    `json:",omitempty"`
	Held     bool   `json:",omitempty"` // checked: the careful user's check passed
	Token    int64  `json:",omitempty"` // checked: the fencing token (fenced kind)
	Accepted bool   `json:",omitempty"` // wrote: the resource took the write
	Err      string `json:",omitempty"`
}

// ServeHolderIfChild must be the first call in the main (or TestMain) of any
// program that calls PlayPause. PlayPause plays the paused holder in a
// process of its own, so that SIGSTOP freezes all of it (the ZooKeeper
// client's heartbeats too, as a GC pause or a stopped VM would): it runs the
// program's own executable again with an environment variable set. In that
// process ServeHolderIfChild serves the holder and exits; in any other it
// returns at once.
func ServeHolderIfChild() {
	if os.Getenv(holderEnv) == "" {
		return
	}
	os.Exit(serveHolder(os.Stdin, os.Stdout, os.Stderr))
}

// serveHolder is the holder's process: it reads its lane from in, then one
// command at a time, and answers on out. Logs go to errOut, which the
// referee shows when something fails.
func serveHolder(in io.Reader, out, errOut io.Writer) int {
	logger := slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	dec := json.NewDecoder(in)
	enc := json.NewEncoder(out)
	fail := func(err error) int {
		_ = enc.Encode(reply{Op: "error", Err: err.Error()})
		return 1
	}
	var spec holderSpec
	if err := dec.Decode(&spec); err != nil {
		return fail(fmt.Errorf("read the lane: %w", err))
	}
	ctx := context.Background()
	c, err := openContender(ctx, spec.laneSpec, "A", spec.Session, logger)
	if err != nil {
		return fail(err)
	}
	defer c.close()
	h := &holder{c: c}
	defer h.releases.Wait() // before the connections close
	if err := enc.Encode(reply{Op: "ready"}); err != nil {
		return 1
	}
	for {
		var cmd command
		if err := dec.Decode(&cmd); err != nil {
			if errors.Is(err, io.EOF) {
				return 0 // the referee is done
			}
			return fail(err)
		}
		var r reply
		switch cmd.Op {
		case "acquire":
			r, err = h.acquire(ctx, cmd.Round)
		case "write":
			r, err = h.write(ctx, cmd.Round)
		default:
			err = fmt.Errorf("unknown command %q", cmd.Op)
		}
		if err != nil {
			return fail(fmt.Errorf("round %d, %s: %w", cmd.Round, cmd.Op, err))
		}
		if err := enc.Encode(r); err != nil {
			return 1
		}
	}
}

// holderSpec is the paused holder's lane and its ZooKeeper session timeout.
type holderSpec struct {
	laneSpec
	Session time.Duration
}

// holder is the paused contender's state between commands.
type holder struct {
	c        *contender
	lock     lockHandle // the current holding
	token    int64
	releases sync.WaitGroup
}

// acquire takes the lock, writes once as the holder (proof that it holds),
// then makes the careful user's check and reports it. The referee stops the
// process right after this answer: between the check and the next write,
// the window no check can close.
func (h *holder) acquire(ctx context.Context, n int) (reply, error) {
	sctx, cancel := context.WithTimeout(ctx, holderStep)
	defer cancel()
	h.lock = h.c.newLock()
	if err := h.lock.acquire(sctx); err != nil {
		return reply{}, fmt.Errorf("take the lock: %w", err)
	}
	token, err := h.lock.token(sctx)
	if err != nil {
		return reply{}, h.giveUp(fmt.Errorf("fencing token: %w", err))
	}
	h.token = token
	ok, err := h.c.write(sctx, n, "first write", token)
	if err == nil && !ok {
		err = errors.New("the resource refused a fresh holding's write")
	}
	if err != nil {
		return reply{}, h.giveUp(fmt.Errorf("first write: %w", err))
	}
	held, err := h.lock.check(sctx)
	if err != nil {
		return reply{}, h.giveUp(fmt.Errorf("check the lock: %w", err))
	}
	if !held {
		// Lost before the pause (a busy machine): nothing to show this
		// round; the referee plays it again.
		h.release()
		return reply{Op: "checked", Round: n, Held: false}, nil
	}
	return reply{Op: "checked", Round: n, Held: true, Token: token}, nil
}

// write is the holder's write right after it runs again, still believing
// its check. The release that follows runs in the background: after the
// pause it finds the holding over (errNotOurs, ErrLost), and the mutex's
// waits up to a second for a connection to delete a node that the server
// has already removed, which the next round need not wait for.
func (h *holder) write(ctx context.Context, n int) (reply, error) {
	sctx, cancel := context.WithTimeout(ctx, holderStep)
	defer cancel()
	accepted, err := h.c.write(sctx, n, "write after the pause", h.token)
	if err != nil {
		return reply{}, h.giveUp(err)
	}
	h.release()
	return reply{Op: "wrote", Round: n, Accepted: accepted}, nil
}

// release gives up the current holding in the background.
func (h *holder) release() {
	l := h.lock
	h.lock = nil
	h.releases.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = l.release(ctx)
	})
}

// giveUp releases the holding after a failed step and returns err.
func (h *holder) giveUp(err error) error {
	h.release()
	return err
}
