// Package check validates what every recipe's constructor takes: a client
// and a path.
package check

import (
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// ClientPath returns nil when c is a client and path a valid absolute
// path, an error wrapping zkrecipes.ErrInvalidArgument for a nil client,
// and a *client.PathError for a bad path. With rootReason set, the root is
// refused too, for that reason ("a lock needs a directory of its own").
func ClientPath(c *client.Client, path, rootReason string) error {
	if c == nil {
		return errs.Invalid("nil client")
	}
	if err := client.ValidatePath(path); err != nil {
		return err
	}
	if rootReason != "" && path == "/" {
		return &client.PathError{Path: path, Reason: rootReason}
	}
	return nil
}
