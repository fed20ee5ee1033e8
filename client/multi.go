package client

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"

	"github.com/go-zookeeper/zk"
)

// Multi runs go-zookeeper's multi-operation transaction: every op commits, or
// none does. ops are *zk.CreateRequest, *zk.DeleteRequest,
// *zk.SetDataRequest and *zk.CheckVersionRequest with paths relative to the
// namespace, as every other operation here takes them (the requests given
// are not modified). A lock's OwnerCheck is such an op: with it, the
// transaction commits only while the lock is held.
//
// A transaction the server refused because of one of its ops fails with an
// *OpError naming that op by its index among ops, its kind and its path as
// given; it unwraps to the server's answer, so errors.Is(err, zk.ErrNoNode)
// and the like match. The results then say the same: the failing op's
// MultiResponse carries the error, those before it none, those after it
// zk.ErrRuntimeInconsistency.
//
// Like Set, a Multi whose reply was lost is retried and may then find its
// own earlier commit (zk.ErrNodeExists, zk.ErrBadVersion): design
// transactions so that a replay is harmless, or check the outcome. So must a
// caller whose ctx ended while the transaction was in flight: Multi then
// returns at once, but the transaction may still commit.
func (c *Client) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	if c == nil || c.closedCh == nil {
		return nil, errZeroClient()
	}
	if len(ops) == 0 {
		return nil, errs.Invalid("empty transaction")
	}
	abs := make([]any, len(ops))
	for i, op := range ops {
		var err error
		if abs[i], err = c.absOp(op); err != nil {
			return nil, err
		}
	}
	out, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) ([]zk.MultiResponse, error) {
		res, err := conn.Multi(ctx, abs...)
		return res, failedOp(ops, res, err)
	})
	for i := range out {
		if out[i].String != "" {
			out[i].String = c.rel(out[i].String)
		}
	}
	path := multiPath(ops)
	var oe *OpError
	if errors.As(err, &oe) {
		path = oe.Path
	}
	return out, aclErr("multi", path, err)
}

// absOp copies one Multi op with its path under the namespace. The copy owns
// its data and ACL too: the request may still read them after Multi returned
// (see runResult).
func (c *Client) absOp(op any) (any, error) {
	switch o := op.(type) {
	case *zk.CreateRequest:
		if o != nil {
			cp, err := copyOp(c, o, func(r *zk.CreateRequest) *string { return &r.Path })
			cp.Data, cp.Acl = bytes.Clone(o.Data), slices.Clone(o.Acl)
			if cp.Acl == nil && err == nil {
				cp.Acl = c.aclFor(cp.Path)
			}
			return cp, err
		}
	case *zk.DeleteRequest:
		if o != nil {
			return copyOp(c, o, func(r *zk.DeleteRequest) *string { return &r.Path })
		}
	case *zk.SetDataRequest:
		if o != nil {
			cp, err := copyOp(c, o, func(r *zk.SetDataRequest) *string { return &r.Path })
			cp.Data = bytes.Clone(o.Data)
			return cp, err
		}
	case *zk.CheckVersionRequest:
		if o != nil {
			return copyOp(c, o, func(r *zk.CheckVersionRequest) *string { return &r.Path })
		}
	}
	return nil, errs.Invalid("unsupported transaction op %T", op)
}

// copyOp copies the request *o with its path (the field path points to in
// the copy) put under the namespace.
func copyOp[T any](c *Client, o *T, path func(*T) *string) (*T, error) {
	cp := *o
	p := path(&cp)
	full, err := c.abs(*p)
	*p = full
	return &cp, err
}

// multiPath names a transaction in an error by its first op's path (by
// the failing op's, when the server said which).
func multiPath(ops []any) string {
	if len(ops) == 0 {
		return ""
	}
	switch o := ops[0].(type) {
	case *zk.CreateRequest:
		return o.Path
	case *zk.DeleteRequest:
		return o.Path
	case *zk.SetDataRequest:
		return o.Path
	case *zk.CheckVersionRequest:
		return o.Path
	}
	return ""
}
