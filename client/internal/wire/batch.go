package wire

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Step is one request of a Pipeline, made by the Step* functions. Its
// results are written on the reader goroutine and read, with its methods,
// once Pipeline returned nil.
type Step struct {
	r     *request
	frame []byte
	str   string
	data  []byte
	stat  *zk.Stat
	multi []zk.MultiResponse

	settled bool  // its outcome is in: set by Pipeline or Fail before they return
	err     error // its outcome
}

// StepCreate2 is a create2 (the new node's path and stat).
func StepCreate2(path string, data []byte, flags int32, acl []zk.ACL) *Step {
	s := &Step{}
	s.r = newRequest(opCreate2, func(code int32, d *decoder) error {
		if code != 0 {
			return codeError(code)
		}
		s.str, s.stat = d.string(), d.stat()
		return d.err
	})
	s.frame = requestFrame(opCreate2, func(e *encoder) { encodeCreate(e, path, data, acl, flags) })
	return s
}

// StepGet is a getData without a watch.
func StepGet(path string) *Step {
	s := &Step{}
	s.r = newRequest(opGetData, func(code int32, d *decoder) error {
		if code != 0 {
			return codeError(code)
		}
		s.data, s.stat = d.buffer(), d.stat()
		return d.err
	})
	s.frame = requestFrame(opGetData, func(e *encoder) { encodePathWatch(e, path, false) })
	return s
}

// StepDelete is a delete at version (-1 for any).
func StepDelete(path string, version int32) *Step {
	s := &Step{r: newRequest(opDelete, nil)}
	s.frame = requestFrame(opDelete, func(e *encoder) { encodePathVersion(e, path, version) })
	return s
}

// StepMulti is a transaction of ops (see Multi); an op of an unknown type
// is an error, and nothing is made.
func StepMulti(ops ...any) (*Step, error) {
	e := encoder{b: make([]byte, 12, 64)}
	putOp(e.b, opMulti)
	if err := encodeMulti(&e, ops); err != nil {
		return nil, err
	}
	putLength(e.b)
	s := &Step{frame: e.b}
	n := len(ops)
	s.r = newRequest(opMulti, func(code int32, d *decoder) error {
		if d.left() > 0 {
			s.multi = decodeMulti(d, n)
		}
		if code != 0 {
			return codeError(code)
		}
		if d.err != nil {
			return d.err
		}
		for _, r := range s.multi {
			if r.Error != nil {
				return r.Error
			}
		}
		return nil
	})
	return s, nil
}

// ErrNotSent is a step's error before its Pipeline returned.
var ErrNotSent = errors.New("zkrecipes: request not sent yet")

// ErrOutcomeUnknown is wrapped, beside ctx's error, by the error of a step
// whose Pipeline returned because ctx ended before its reply: the request
// was sent and may have been applied.
var ErrOutcomeUnknown = errors.New("zkrecipes: request sent, outcome unknown")

// Fail ends steps that will not be sent with err (those already ended
// keep their outcome). Their requests never reach a link.
func Fail(err error, steps ...*Step) {
	for _, s := range steps {
		if !s.settled {
			s.settled, s.err = true, err
		}
	}
}

// Err is the step's error (nil: the server did it).
func (s *Step) Err() error {
	if !s.settled {
		return ErrNotSent
	}
	return s.err
}

// Created is a create's path and stat.
func (s *Step) Created() (string, *zk.Stat, error) {
	if err := s.Err(); err != nil {
		return "", nil, err
	}
	return s.str, s.stat, nil
}

// Got is a get's data and stat.
func (s *Step) Got() ([]byte, *zk.Stat, error) {
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	return s.data, s.stat, nil
}

// Results is a transaction's results (which op failed, when it failed).
func (s *Step) Results() ([]zk.MultiResponse, error) {
	if !s.settled {
		return nil, ErrNotSent
	}
	return s.multi, s.err
}

// Pipeline sends steps on the connection in one go, in their order, and
// waits until every one is answered or failed with the connection. The
// server answers a session's requests in the order they were sent, so a
// step sees what the steps before it did, and the whole costs one round
// trip. Without a connection every step fails at once (ErrConnectionClosed,
// ErrClosing once the Conn is closed). When ctx ends first, Pipeline
// returns ctx's error at once: the requests go on, and the steps' results
// must not be read.
func (c *Conn) Pipeline(ctx context.Context, steps ...*Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	l, err := c.linkLocked()
	if err != nil {
		c.mu.Unlock()
		Fail(err, steps...)
		return nil
	}
	for _, s := range steps {
		l.queueFrameLocked(s.r, s.frame)
	}
	l.flushLocked(ctx.Done() == nil)
	c.mu.Unlock()
	for i, s := range steps {
		settled, err := wait(ctx, s.r)
		if !settled {
			unknown := fmt.Errorf("%w: %w", ErrOutcomeUnknown, ctx.Err())
			s.settled, s.err = true, unknown
			for _, left := range steps[i+1:] {
				left.r.claim.CompareAndSwap(claimOpen, claimLeft)
				left.settled, left.err = true, unknown
			}
			return ctx.Err()
		}
		s.settled, s.err = true, err
	}
	return nil
}
