package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestNamed(t *testing.T) {
	sentinel := errors.New("zkrecipes: client is closed")
	err := Named("zkrecipes: cache is closed", sentinel)
	if err.Error() != "zkrecipes: cache is closed" {
		t.Errorf("message %q", err)
	}
	if !errors.Is(err, sentinel) || errors.Unwrap(err) != sentinel {
		t.Error("does not wrap its sentinel")
	}
	wrapped := fmt.Errorf("zkrecipes: start cache /a: %w", err)
	if !errors.Is(wrapped, err) || !errors.Is(wrapped, sentinel) {
		t.Error("wrapped, it matches neither itself nor its sentinel")
	}
	if errors.Is(Named("zkrecipes: cache is closed", sentinel), err) {
		t.Error("two calls made equal values")
	}
}
