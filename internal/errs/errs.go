// Package errs gives the recipes errors of their own for the sentinels
// they share with package client: a closed cache says "zkrecipes: cache is
// closed", not the client's "zkrecipes: client is closed", while
// errors.Is still matches zkrecipes.ErrClosed.
package errs

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
