package client

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// OpError is the error of a transaction (Multi) that the server refused
// because of one of its ops: none of the ops was applied. It names that op
// by its index among the ops given, its kind and its path, and unwraps to
// the server's answer for it, so errors.Is(err, zk.ErrNoNode) (or
// zk.ErrNodeExists, zk.ErrBadVersion, ...) matches as it would without it.
// A transaction refused by the ACLs is an *ACLError wrapping an *OpError.
type OpError struct {
	// Index is the failing op's place among the ops given, from 0.
	Index int
	// Op is the failing op's kind: "create", "delete", "set" or "check".
	Op string
	// Path is the failing op's path as given: relative to the client's
	// namespace.
	Path string
	// Err is the server's answer for the op (zk.ErrNoNode, ...).
	Err error
}

// Error names the op and the server's answer, e.g. "zkrecipes: transaction
// op 2 (create /done/a): zk: node does not exist".
func (e *OpError) Error() string {
	return fmt.Sprintf("zkrecipes: transaction op %d (%s %s): %v", e.Index, e.Op, e.Path, e.Err)
}

// Unwrap returns the server's answer for the op.
func (e *OpError) Unwrap() error { return e.Err }

// opKind is the kind and the path of a transaction op, as OpError names
// them ("" for an op of no known kind).
func opKind(op any) (kind, path string) {
	switch o := op.(type) {
	case *zk.CreateRequest:
		if o != nil {
			return "create", o.Path
		}
	case *zk.DeleteRequest:
		if o != nil {
			return "delete", o.Path
		}
	case *zk.SetDataRequest:
		if o != nil {
			return "set", o.Path
		}
	case *zk.CheckVersionRequest:
		if o != nil {
			return "check", o.Path
		}
	}
	return "", ""
}

// failedOp is the *OpError of a refused transaction of ops, from its
// results: the ops before the failing one answer with no error and those
// after it with a runtime inconsistency, so the first error is the cause.
// It returns err unchanged when the results name no op (the transaction
// was not answered, or failed as a whole).
func failedOp(ops []any, res []zk.MultiResponse, err error) error {
	if err == nil {
		return nil
	}
	for i, r := range res {
		if r.Error == nil {
			continue
		}
		if i >= len(ops) {
			break
		}
		kind, path := opKind(ops[i])
		return &OpError{Index: i, Op: kind, Path: path, Err: r.Error}
	}
	return err
}
