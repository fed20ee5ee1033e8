package client

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Multi runs go-zookeeper's multi-operation transaction: every op commits, or
// none does. ops are *zk.CreateRequest, *zk.DeleteRequest,
// *zk.SetDataRequest and *zk.CheckVersionRequest with paths relative to the
// namespace, as every other operation here takes them (the requests given
// are not modified). A lock's OwnerCheck is such an op: with it, the
// transaction commits only while the lock is held.
//
// Like Set, a Multi whose reply was lost is retried and may then find its
// own earlier commit (zk.ErrNodeExists, zk.ErrBadVersion): design
// transactions so that a replay is harmless, or check the outcome.
func (c *Client) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	if c == nil {
		return nil, invalidArg("nil client")
	}
	if len(ops) == 0 {
		return nil, invalidArg("empty transaction")
	}
	abs := make([]any, len(ops))
	for i, op := range ops {
		var err error
		if abs[i], err = c.absOp(op); err != nil {
			return nil, err
		}
	}
	var out []zk.MultiResponse
	err := c.run(ctx, func(conn *zk.Conn) (err error) {
		out, err = conn.Multi(abs...)
		return err
	})
	for i := range out {
		if out[i].String != "" {
			out[i].String = c.rel(out[i].String)
		}
	}
	return out, err
}

// absOp copies one Multi op with its path under the namespace.
func (c *Client) absOp(op any) (any, error) {
	switch o := op.(type) {
	case *zk.CreateRequest:
		if o == nil {
			break
		}
		cp := *o
		p, err := c.abs(o.Path)
		if cp.Acl == nil {
			cp.Acl = c.acl
		}
		cp.Path = p
		return &cp, err
	case *zk.DeleteRequest:
		if o == nil {
			break
		}
		cp := *o
		p, err := c.abs(o.Path)
		cp.Path = p
		return &cp, err
	case *zk.SetDataRequest:
		if o == nil {
			break
		}
		cp := *o
		p, err := c.abs(o.Path)
		cp.Path = p
		return &cp, err
	case *zk.CheckVersionRequest:
		if o == nil {
			break
		}
		cp := *o
		p, err := c.abs(o.Path)
		cp.Path = p
		return &cp, err
	}
	return nil, invalidArg("unsupported transaction op %T", op)
}

// RetryPolicy is the policy the client's operations run under; recipes use
// it for their own retries (a waiter re-queueing after its session was lost).
func (c *Client) RetryPolicy() retry.Policy {
	if c == nil || c.cfg.policy == nil {
		return retry.Default()
	}
	return c.cfg.policy
}
