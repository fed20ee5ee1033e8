package barrier

import (
	"bytes"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
)

// Option configures a Barrier or a Double.
type Option func(*options) error

type options struct {
	data []byte
}

// WithData sets the data of the node the handle creates: a Barrier's
// barrier node, a Double member's own node (default: this host's IP
// address, as Curator writes). Nobody reads it; it tells an operator
// looking at the nodes who made them.
func WithData(data []byte) Option {
	return func(o *options) error {
		o.data = bytes.Clone(data)
		return nil
	}
}

// apply runs opts over the defaults.
func apply(opts []Option) (options, error) {
	o := options{data: lockq.DefaultData()}
	return o, option.Apply("barrier", &o, opts)
}
