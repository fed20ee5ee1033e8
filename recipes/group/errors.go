package group

import (
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// life are the errors of a call on a group member that is closed, not started or
// started already. A call that fails because the client is closed wraps
// zkrecipes.ErrClosed as the client says it.
var life = errs.NewLife("group member")

// errZero is the error of every call on a Member not made by New.
func errZero() error { return errs.Invalid("zero or nil Member: make one with New") }
