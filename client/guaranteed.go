package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"

	"github.com/go-zookeeper/zk"
)

// DeleteGuaranteed deletes the node at path, as Curator's guaranteed delete
// does, and never waits long for a connection. It first tries within ctx
// (under the retry policy) while the client has a connection, or gets one
// back within a second of losing it; a connection that
// dies silently counts once the client notices (within 2/3 of the session
// timeout, see the package documentation). If that fails for a reason that
// may pass (no connection, ctx ended), the client keeps the delete and
// retries it in the background, at once on every reconnect and
// periodically while connected, until the node is gone, the session sess
// ends (the server then removes sess's ephemeral nodes itself; one last try
// is made on the next session, which covers a create that the server
// applied only after the session had changed) or the client closes. A nil
// sess means: until the node is gone or the client closes. The error
// returned then wraps zkrecipes.ErrDeletePending and the cause. An absent node is
// success.
//
// A node of a session that has ended (sess is Done: Lost, and the client
// is not connected in a new session) is gone with it, or goes as soon as
// the server expires it: DeleteGuaranteed returns nil without waiting,
// leaving only the last try on the next session to the background; so it
// does when sess ends while it waits.
//
// A delete the server refuses for good (the parent's ACL does not let
// this client delete: an *ACLError, errors.Is(err, ErrNoAuth); or the node
// has children) is not retried: the error is returned, or, in the
// background, logged, and DeletesGivenUp counts it. The node then stays
// until its session ends (an ephemeral one) or someone allowed deletes it.
// After Close the error wraps zkrecipes.ErrClosed.
//
// PendingDeletes counts the deletes still running in the background.
func (c *Client) DeleteGuaranteed(ctx context.Context, path string, sess *Session) error {
	full, err := c.abs(path)
	if err != nil {
		return err
	}
	if c.isClosed() {
		return errClosed
	}
	ended := sess != nil && sess.ended()
	if !ended || !isClosedChan(c.Disconnected()) {
		// A session that has ended gets its last try here when the client
		// has a connection now (in a new session): nothing to wait for else.
		err = c.deleteNow(ctx, path, sess)
		if err == nil || !mayPass(err) {
			c.countGivenUp(err)
			return err
		}
	}
	c.keepDeleting("node "+full, sess, func(conn *wire.Conn) error {
		if err := conn.Delete(bg, full, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		return nil
	})
	if sess != nil && sess.ended() {
		return nil // gone with its session
	}
	return fmt.Errorf("%w: %s: %w", zkrecipes.ErrDeletePending, path, err)
}

// reconnectWait bounds how long DeleteGuaranteed's first try waits for a
// connection that is lost: past it, the delete goes on in the background.
const reconnectWait = time.Second

// errNoConnection ends the first try of a guaranteed delete that waited
// reconnectWait for a connection.
var errNoConnection = fmt.Errorf("zkrecipes: no connection to ZooKeeper for %v", reconnectWait)

// errSessionEnded ends the first try of a guaranteed delete whose node's
// session ended meanwhile: the node went with it.
var errSessionEnded = errors.New("zkrecipes: the node's session ended")

// deleteNow is DeleteGuaranteed's first try: DeleteIfExists within ctx,
// given up once the client has been without a connection for
// reconnectWait, or once sess (if not nil and not over yet) ends. The
// error then wraps errNoConnection or errSessionEnded.
func (c *Client) deleteNow(ctx context.Context, path string, sess *Session) error {
	// The common case, with no goroutine: the connection is up, and one
	// request settles it (gone, or refused). Only a connection lost under
	// it takes the bounded wait below.
	if conn := c.upNow(); conn != nil {
		full, err := c.abs(path)
		if err != nil {
			return err
		}
		err = conn.Delete(ctx, full, -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if !c.retryable(err) {
			return aclErr("delete", path, err)
		}
	}
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var sessDone <-chan struct{}
	if sess != nil && !sess.ended() {
		sessDone = sess.Done()
	}
	go c.abandonWhenCut(tctx, cancel, sessDone)
	err := c.DeleteIfExists(tctx, path)
	if err != nil && ctx.Err() == nil && tctx.Err() != nil {
		err = firstTryCut(context.Cause(tctx), err)
	}
	return err
}

// firstTryCut is the error of a first try that abandonWhenCut ended with
// cause: the cause itself (the caller did not cancel anything, so the
// cancellation that ended the try's request says nothing), with the
// request's own error beside it when that is another one.
func firstTryCut(cause, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return cause
	}
	return fmt.Errorf("%w (%v)", cause, err)
}

// abandonWhenCut cancels ctx (with errNoConnection) once the client has
// been without a connection for reconnectWait, or (with errSessionEnded)
// once sessDone is closed; it returns when ctx ends or the client closes.
func (c *Client) abandonWhenCut(ctx context.Context, cancel context.CancelCauseFunc, sessDone <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.closedCh:
			return // the delete fails with errClosed
		case <-sessDone:
			cancel(errSessionEnded)
			return
		case <-c.Disconnected():
		}
		t := time.NewTimer(reconnectWait)
		select {
		case <-ctx.Done():
		case <-sessDone:
			cancel(errSessionEnded)
		case <-t.C:
			cancel(errNoConnection)
		case <-c.connectedSignal():
			t.Stop()
			continue // back: watch for the next loss
		}
		t.Stop()
		return
	}
}

// PendingDeletes is the number of guaranteed deletes still being retried in
// the background (see DeleteGuaranteed).
func (c *Client) PendingDeletes() int {
	if c == nil || c.closedCh == nil {
		return 0
	}
	return int(c.pending.Load())
}

// notePending tells the DeletesPending hook the new count.
func (c *Client) notePending(n int64) {
	if h := c.cfg.hooks; h != nil && h.DeletesPending != nil {
		h.DeletesPending(int(n))
	}
}

// DeletesGivenUp is the number of guaranteed deletes (DeleteGuaranteed,
// and the clean-up of CreateProtected) that the server refused for good,
// for want of permission or because the node has children: they are not
// retried.
func (c *Client) DeletesGivenUp() int64 {
	if c == nil || c.closedCh == nil {
		return 0
	}
	return c.givenUp.Load()
}

// countGivenUp counts err when it is the server's final refusal of a
// delete (not a bad argument, nor a closed client).
func (c *Client) countGivenUp(err error) {
	for _, refusal := range []error{zk.ErrNoAuth, zk.ErrNotEmpty, zk.ErrBadVersion} {
		if errors.Is(err, refusal) {
			c.givenUp.Add(1)
			return
		}
	}
}

// mayPass reports whether a failed delete may succeed later: anything but
// an answer from the server that will not change.
func mayPass(err error) bool {
	for _, final := range []error{zk.ErrNoAuth, zk.ErrNotEmpty, zk.ErrBadVersion, zk.ErrBadArguments, zkrecipes.ErrInvalidPath, zkrecipes.ErrInvalidArgument, zkrecipes.ErrClosed} {
		if errors.Is(err, final) {
			return false
		}
	}
	return true
}

// keepDeleting runs op in the background until it succeeds, fails for good,
// sess ends (after one last try on the next session) or the client closes.
func (c *Client) keepDeleting(what string, sess *Session, op func(conn *wire.Conn) error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.wg.Add(1)
	c.notePending(c.pending.Add(1))
	c.mu.Unlock()
	c.log.Warn("delete pending: retried in the background on every reconnect while its session lives", "what", what)
	go func() {
		defer c.wg.Done()
		defer func() { c.notePending(c.pending.Add(-1)) }()
		c.deleteLoop(what, sess, op)
	}()
}

func (c *Client) deleteLoop(what string, sess *Session, op func(conn *wire.Conn) error) {
	var sessDone <-chan struct{}
	if sess != nil {
		sessDone = sess.Done()
	}
	every := max(c.cfg.sessionTimeout/3, 100*time.Millisecond)
	lastChance := false
	for attempt := 1; ; attempt++ {
		select {
		case <-c.connectedSignal():
		case <-c.closedCh:
			c.log.Warn("client closed before a pending delete finished; it goes with its session", "what", what)
			return
		}
		if sess != nil && sess.ended() {
			if lastChance {
				return
			}
			lastChance = true
		}
		err := c.tryOnce(op)
		if err == nil {
			c.log.Debug("pending delete done", "what", what, "attempts", attempt)
			return
		}
		if !mayPass(err) || lastChance {
			c.countGivenUp(err)
			c.log.Warn("pending delete given up", "what", what, "err", err)
			return
		}
		t := time.NewTimer(every)
		select {
		case <-t.C:
		case <-sessDone:
			sessDone = nil
		case <-c.closedCh:
		}
		t.Stop()
	}
}

// tryOnce runs op once on the current connection, bounded by the session
// timeout.
func (c *Client) tryOnce(op func(conn *wire.Conn) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.sessionTimeout)
	defer cancel()
	conn, _, err := c.connUp(ctx)
	if err != nil {
		return err
	}
	return op(conn)
}

// upNow returns the connection when it can carry requests right now (see
// connUp), else nil, without waiting.
func (c *Client) upNow() *wire.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.usableLocked() != nil || c.conn == nil || !isClosedChan(c.connReady) || !isClosedChan(c.upCh) {
		return nil
	}
	return c.conn
}
