// Package errs gives the recipes errors of their own for the sentinels
// they share with package client: a closed cache says "zkrecipes: cache is
// closed", not the client's "zkrecipes: client is closed", while
// errors.Is still matches zkrecipes.ErrClosed.
package errs

import "github.com/go-zkrecipes/zkrecipes"

// Named returns an error that reads msg and wraps sentinel: errors.Is
// matches sentinel, errors.Unwrap returns it, and the message is msg
// alone. Each call makes a distinct value: keep it in a package variable.
func Named(msg string, sentinel error) error { return &named{msg: msg, sentinel: sentinel} }

type named struct {
	msg      string
	sentinel error
}

func (e *named) Error() string { return e.msg }

func (e *named) Unwrap() error { return e.sentinel }

// The errors of a closed client, shared by package client and the recipes
// (a recipe whose client closed under it says so): they wrap
// zkrecipes.ErrClosed.
var ClientClosed = Named("zkrecipes: client is closed", zkrecipes.ErrClosed)
