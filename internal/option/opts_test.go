package option

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

type options struct{ n int }

type Option func(*options) error

func withN(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return errs.Invalid("negative n %d", n)
		}
		o.n = n
		return nil
	}
}

func TestApply(t *testing.T) {
	var o options
	if err := Apply("thing", &o, []Option{withN(1), withN(2)}); err != nil || o.n != 2 {
		t.Fatalf("applied in order: n %d, err %v", o.n, err)
	}
	err := Apply("thing", &o, []Option{withN(3), nil})
	if !errors.Is(err, zkrecipes.ErrInvalidArgument) || !strings.Contains(err.Error(), "thing: option 2 is nil") {
		t.Errorf("nil option: %v", err)
	}
	err = Apply("thing", &o, []Option{withN(-1)})
	if !errors.Is(err, zkrecipes.ErrInvalidArgument) || !strings.Contains(err.Error(), "negative n -1") {
		t.Errorf("bad value: %v", err)
	}
	plain := errors.New("plain")
	err = Apply("thing", &o, []Option{func(*options) error { return plain }})
	if err != plain {
		t.Errorf("an option's own error is not returned as is: %v", err)
	}
	if err := Apply[options, Option]("thing", &o, nil); err != nil {
		t.Errorf("no options: %v", err)
	}
}
