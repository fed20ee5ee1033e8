package mutex_test

import (
	"reflect"
	"testing"

	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// TestZeroMutex calls every exported method of a zero Mutex: each returns
// an error wrapping ErrInvalidArgument, or the documented zero result for a
// getter, and none panics or blocks. No server is involved.
func TestZeroMutex(t *testing.T) {
	var m mutex.Mutex
	covered := zerocheck.Mutex(t, "zero Mutex", &m)
	zerocheck.RequireCovered(t, reflect.TypeOf(&m), covered)
}
