package node

import (
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// life are the errors of a call on a node that is closed, not started or
// started already. A call that fails because the client is closed wraps
// zkrecipes.ErrClosed as the client says it.
var life = errs.NewLife("node")

// errZero is the error of every method of a Node not made by New.
func errZero() error { return errs.Invalid("zero or nil Node: make one with New") }
