// Package option applies a recipe's functional options: every recipe package
// declares `type Option func(*options) error` and calls Apply in its
// constructor, so a nil option and a bad option value fail the same way
// everywhere.
package option

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
)

// Apply applies opts to o in order and returns the first error: a nil
// option is an error wrapping zkrecipes.ErrInvalidArgument that names
// what (the recipe being made, say "mutex"); an option's own error is
// returned as the option made it (Invalid, or a *client.PathError for a
// bad path).
func Apply[T any, O ~func(*T) error](what string, o *T, opts []O) error {
	for i, opt := range opts {
		if opt == nil {
			return fmt.Errorf("%w: %s: option %d is nil", zkrecipes.ErrInvalidArgument, what, i+1)
		}
		if err := opt(o); err != nil {
			return err
		}
	}
	return nil
}
