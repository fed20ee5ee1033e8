package client

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zookeeper/zk"
)

// ErrNoAuth is go-zookeeper's zk.ErrNoAuth (the very same value, so
// errors.Is matches either): the server refused an operation because the
// ACL of the node (for a create or a delete: of its parent) does not
// grant this client's identities the permission. It is final: operations
// and recipes never retry it, and return it at once, in an *ACLError.
var ErrNoAuth = zk.ErrNoAuth

// ACLError reports an operation the server refused for its ACLs: Err is
// zk.ErrNoAuth (no permission) or zk.ErrInvalidACL (an ACL the server
// does not accept, such as the "auth" scheme without credentials).
// errors.Is(err, ErrNoAuth) matches the first.
type ACLError struct {
	Op   string // "create", "delete", "set", "get", "children", "multi", ...
	Path string // the path given, relative to the namespace
	Err  error  // zk.ErrNoAuth or zk.ErrInvalidACL
}

// Error names the operation, the path and the server's answer.
func (e *ACLError) Error() string {
	return fmt.Sprintf("zkrecipes: %s %s: refused by the ACL: %v", e.Op, e.Path, e.Err)
}

// Unwrap returns the server's answer.
func (e *ACLError) Unwrap() error { return e.Err }

// aclErr wraps err in an *ACLError when it is an ACL refusal (and not one
// already), and returns it unchanged otherwise.
func aclErr(op, path string, err error) error {
	if err == nil || !(errors.Is(err, zk.ErrNoAuth) || errors.Is(err, zk.ErrInvalidACL)) {
		return err
	}
	var ae *ACLError
	if errors.As(err, &ae) {
		return err
	}
	return &ACLError{Op: op, Path: path, Err: err}
}

// ACLProvider chooses the ACL of each node the client creates, as
// Curator's ACLProvider does: it is given the node's absolute path on the
// server (the namespace included; for a protected node, its protected
// name; for a sequential one, the name before its sequence number), and
// containers made as parents are asked for too. An empty result means the
// client's default ACL (WithACL's, else the default WithACL describes).
// It is called on the goroutine of the request, and must be safe for
// concurrent use.
type ACLProvider func(path string) []zk.ACL

// WithACLProvider sets a per-path ACL provider (see ACLProvider). It takes
// precedence over WithACL, which stays the default for paths it leaves
// out. A *zk.CreateRequest given to Multi with its own Acl keeps it.
func WithACLProvider(p ACLProvider) Option {
	return func(c *config) {
		if p == nil {
			c.errs = append(c.errs, errs.Invalid("nil ACL provider"))
			return
		}
		c.aclFor = p
	}
}

// CreatorAllWorldReadACL is an ACL that grants every permission to the
// identities the creating client authenticated with (WithDigestAuth) and
// read permission to anyone: others can read the node and list its
// children, but not write, delete or create under it. Give it to WithACL
// (or return it from an ACLProvider); the client must be authenticated,
// or the server refuses it (zk.ErrInvalidACL).
func CreatorAllWorldReadACL() []zk.ACL {
	return []zk.ACL{
		{Perms: zk.PermAll, Scheme: "auth", ID: ""},
		{Perms: zk.PermRead, Scheme: "world", ID: "anyone"},
	}
}

// aclFor is the ACL of a node created at full, an absolute path.
func (c *Client) aclFor(full string) []zk.ACL {
	if c.cfg.aclFor != nil {
		if acl := c.cfg.aclFor(full); len(acl) > 0 {
			return slices.Clone(acl)
		}
	}
	return c.acl
}
