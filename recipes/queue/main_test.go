package queue_test

import (
	"testing"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// TestMain runs the package's examples against one throwaway ZooKeeper
// server (ZK_BACKEND and ZK_IMAGE choose how); they fail, never skip,
// without one.
func TestMain(m *testing.M) { itest.RunExamples(m) }
