package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/check"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// core is what every kind of queue shares: its paths and options, the
// puts, the consumer loop, the idle line and Close.
type core struct {
	cl           *client.Client
	k            kind
	path, full   string // the queue's path, relative to the namespace and under it
	lockPath     string // "" when not lock-safe
	lockFull     string
	deadFull     string // the dead-letter path under the namespace; "" for none
	consumerPath string
	o            options
	log          *slog.Logger
	idle         *mutex.Mutex // the idle line: one idle consumer of this process at a time watches
	lockData     []byte       // the data of this handle's lock nodes: this host, and the handle's id
	// closeCtx is cancelled by Close: every Consume and Take runs under it.
	closeCtx context.Context
	cancel   context.CancelFunc

	mu        sync.Mutex
	closed    bool
	closeDone chan struct{} // closed once the first Close returned
	closeErr  error
	running   sync.WaitGroup // Consume and Take calls
	subs      map[*pubsub.Sub[Event]]struct{}
	subWG     sync.WaitGroup
	foreign   map[string]bool // foreign names told of already
	head      []entry         // Simple: what is left of the last listing, in order
}

// maxForeign bounds the foreign names remembered (so told once each).
const maxForeign = 1024

// newCore checks the arguments common to every kind and makes the core:
// no I/O.
func newCore(c *client.Client, k kind, path string, opts []Option) (*core, error) {
	if err := check.ClientPath(c, path, "a queue needs a node of its own, not the root"); err != nil {
		return nil, err
	}
	// Item names must make valid paths too (a path at the length limit).
	if err := client.ValidatePath(path + "/" + k.prefix() + "0000000000"); err != nil {
		return nil, err
	}
	o, err := apply(k, opts)
	if err != nil {
		return nil, err
	}
	if k == kindSimple && (o.lockPath != "" || o.maxItems > 0) {
		return nil, invalidArg("a simple queue takes no lock path and no max items (Curator's SimpleDistributedQueue has neither)")
	}
	if o.consumerPath == "" {
		o.consumerPath = path + "-consumers"
		if err := client.ValidatePath(o.consumerPath); err != nil {
			return nil, err
		}
	}
	for _, p := range []struct{ name, path string }{{"lock path", o.lockPath}, {"consumer path", o.consumerPath}, {"dead-letter path", o.deadLetter}} {
		if p.path == "" {
			continue
		}
		if overlap(p.path, path) {
			return nil, &client.PathError{Path: p.path, Reason: fmt.Sprintf("the %s must be neither the queue's path %s, nor under it, nor above it", p.name, path)}
		}
	}
	if o.lockPath != "" && overlap(o.lockPath, o.consumerPath) {
		return nil, &client.PathError{Path: o.lockPath, Reason: "the lock path and the consumer path must be apart"}
	}
	if o.deadLetter != "" {
		for _, p := range []struct{ name, path string }{{"lock path", o.lockPath}, {"consumer path", o.consumerPath}} {
			if p.path != "" && overlap(o.deadLetter, p.path) {
				return nil, &client.PathError{Path: o.deadLetter, Reason: fmt.Sprintf("the dead-letter path and the %s %s must be apart", p.name, p.path)}
			}
		}
		// Its item names must make valid paths too.
		if err := client.ValidatePath(o.deadLetter + "/" + k.prefix() + "0000000000"); err != nil {
			return nil, err
		}
	}
	idle, err := mutex.New(c, o.consumerPath+"/idle")
	if err != nil {
		return nil, err
	}
	q := &core{cl: c, k: k, path: path, full: access.Full(c, path), o: o, log: access.RecipeLogger(c, "queue", path), idle: idle,
		consumerPath: o.consumerPath, closeDone: make(chan struct{}),
		subs: map[*pubsub.Sub[Event]]struct{}{}, foreign: map[string]bool{}}
	if o.lockPath != "" {
		q.lockPath, q.lockFull = o.lockPath, access.Full(c, o.lockPath)
	}
	if o.deadLetter != "" {
		q.deadFull = access.Full(c, o.deadLetter)
	}
	q.lockData = fmt.Appendf(lockq.DefaultData(), " zkrecipes-queue %s", uuid.NewString())
	q.closeCtx, q.cancel = context.WithCancel(context.Background())
	return q, nil
}

// overlap reports whether paths a and b are the same node, or one is under
// the other.
func overlap(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// lockSafe reports whether the queue has a lock path.
func (q *core) lockSafe() bool { return q.lockPath != "" }

// errClosed is the error of every call after Close.
func (q *core) errClosed() error {
	return fmt.Errorf("zkrecipes: %s %s is closed: %w", q.k, q.path, zkrecipes.ErrClosed)
}

// wrap names the queue and what failed.
func (q *core) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("zkrecipes: %s %s: %s: %w", q.k, q.path, what, err)
}

// usable is the error of a call that cannot start: the handle is closed or
// ctx is over.
func (q *core) usable(ctx context.Context) error {
	q.mu.Lock()
	closed := q.closed
	q.mu.Unlock()
	if closed {
		return q.errClosed()
	}
	return ctx.Err()
}

// enter counts a Consume or Take call, which Close waits for; it fails once
// the handle is closed.
func (q *core) enter() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return q.errClosed()
	}
	q.running.Add(1)
	return nil
}

// bind returns ctx, also cancelled by Close.
func (q *core) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(q.closeCtx, cancel)
	return ctx, func() { stop(); cancel() }
}

// ended is the error of a loop whose ctx (bound by bind) ended: ErrClosed
// after Close, else ctx's error.
func (q *core) ended(ctx context.Context) error {
	if q.closeCtx.Err() != nil {
		return q.errClosed()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}

// close is every kind's Close: it stops the Consume and Take calls (their
// handlers' ctx ends), waits until they have returned, having committed or
// released the items in hand and left the idle line and the consumer
// registry (their nodes deleted, guaranteed), or until ctx ends, and closes
// the event channels. A second Close returns the first one's result.
func (q *core) close(ctx context.Context) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		select {
		case <-q.closeDone:
			return q.closeErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	q.closed = true
	q.mu.Unlock()
	q.cancel()
	done := make(chan struct{})
	go func() {
		q.running.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = q.wrap("close", fmt.Errorf("consumers still finishing their items: %w", ctx.Err()))
	}
	q.mu.Lock()
	subs := q.subs
	q.subs = map[*pubsub.Sub[Event]]struct{}{}
	q.mu.Unlock()
	for s := range subs {
		s.Stop()
	}
	if err == nil {
		q.subWG.Wait()
	}
	q.closeErr = err
	close(q.closeDone)
	return err
}

// noteForeign tells of a child that is no item, once per name.
func (q *core) noteForeign(names []string) {
	for _, n := range names {
		q.mu.Lock()
		seen := q.foreign[n]
		if !seen && len(q.foreign) < maxForeign {
			q.foreign[n] = true
		}
		q.mu.Unlock()
		if !seen {
			q.publish(Event{Type: Foreign, Node: n})
		}
	}
}

// fatal reports whether err ends a consumer loop rather than being retried:
// the handle or the client is closed, the ACLs refuse, the path is bad.
func fatal(err error) bool {
	return errors.Is(err, zkrecipes.ErrClosed) || errors.Is(err, client.ErrNoAuth) ||
		errors.Is(err, zkrecipes.ErrInvalidPath) || errors.Is(err, zkrecipes.ErrInvalidArgument) ||
		errors.Is(err, zkrecipes.ErrNotStarted)
}
