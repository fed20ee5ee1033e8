package client

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Batch is requests sent on one connection in one go: ZooKeeper answers a
// session's requests in the order they were sent, so each request of a
// batch sees what the ones before it did (a read after a create reads at
// least the state the create was applied to), and the whole batch costs one
// round trip. Make one with Conn.Batch, add requests, then Send. Paths are
// absolute, as Conn's; nothing is retried.
type Batch struct {
	c     *Conn
	steps []*wire.Step
	err   error
	sent  bool
}

// Reply is one request's outcome in a Batch, to read once Send returned
// nil.
type Reply struct {
	s   *wire.Step
	err error // why the request could not be added (then s is nil)
}

// Batch starts a batch on the connection.
func (c *Conn) Batch() *Batch { return &Batch{c: c} }

func (b *Batch) add(s *wire.Step) *Reply {
	if b.sent {
		b.err = errs.Invalid("a request added to a batch already sent")
		return &Reply{err: b.err}
	}
	b.steps = append(b.steps, s)
	return &Reply{s: s}
}

// Create adds a create (create2: the node's path and stat) with the client's
// ACL for path.
func (b *Batch) Create(path string, data []byte, flags int32) *Reply {
	return b.add(wire.StepCreate2(path, data, flags, b.c.aclOf(path)))
}

// Get adds a read of a node's data and stat.
func (b *Batch) Get(path string) *Reply { return b.add(wire.StepGet(path)) }

// Delete adds a delete at version (-1 for any).
func (b *Batch) Delete(path string, version int32) *Reply {
	return b.add(wire.StepDelete(path, version))
}

// Multi adds a transaction (Conn.Multi's ops). Bad ops make Send fail, with
// nothing sent.
func (b *Batch) Multi(ops ...any) *Reply {
	out, err := b.c.multiOps(ops)
	if err != nil {
		b.err = err
		return &Reply{err: err}
	}
	s, err := wire.StepMulti(out...)
	if err != nil {
		b.err = errs.Invalid("%v", err)
		return &Reply{err: b.err}
	}
	return b.add(s)
}

// Send sends the batch's requests, in order (once: a second Send is an
// error wrapping ErrInvalidArgument), and waits until each is
// answered or failed with the connection (zk.ErrConnectionClosed: its
// outcome is then unknown). Its error is only that the batch could not be
// sent (a bad op, a nil Conn: nothing was) or that ctx ended (the requests
// go on; their replies must not be read); each request's own error is in
// its Reply.
func (b *Batch) Send(ctx context.Context) error {
	if b.sent {
		return errs.Invalid("a batch is sent once")
	}
	b.sent = true
	if err := b.c.usable(); err != nil {
		wire.Fail(err, b.steps...)
		return err
	}
	if b.err != nil {
		wire.Fail(b.err, b.steps...)
		return b.err
	}
	return b.c.t.Pipeline(ctx, b.steps...)
}

// errNotSent is a Reply's error before its batch's Send.
var errNotSent = errs.Invalid("a reply of a batch not sent")

// notSent turns the wire's not-sent error into errNotSent.
func notSent(err error) error {
	if errors.Is(err, wire.ErrNotSent) {
		return errNotSent
	}
	return err
}

func (r *Reply) step() *wire.Step {
	if r == nil || r.s == nil {
		return nil
	}
	return r.s
}

// missing is the error of a Reply with no request: why it was not added,
// else that it is no Batch's.
func (r *Reply) missing() error {
	if r != nil && r.err != nil {
		return r.err
	}
	return errNotStarted
}

// Err is the request's error (nil: the server did it); before Send, an
// error that says it was not sent.
func (r *Reply) Err() error {
	s := r.step()
	if s == nil {
		return r.missing()
	}
	return notSent(s.Err())
}

// Created is a Create's path and stat.
func (r *Reply) Created() (string, *zk.Stat, error) {
	s := r.step()
	if s == nil {
		return "", nil, r.missing()
	}
	p, st, err := s.Created()
	return p, st, notSent(err)
}

// Data is a Get's data and stat.
func (r *Reply) Data() ([]byte, *zk.Stat, error) {
	s := r.step()
	if s == nil {
		return nil, nil, r.missing()
	}
	data, st, err := s.Got()
	return data, st, notSent(err)
}

// Results is a Multi's results: when it failed, the first op with an error
// is the one that failed.
func (r *Reply) Results() ([]zk.MultiResponse, error) {
	s := r.step()
	if s == nil {
		return nil, r.missing()
	}
	res, err := s.Results()
	return res, notSent(err)
}
