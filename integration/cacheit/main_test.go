// Package cacheit tests recipes/cache against real ZooKeeper servers.
package cacheit

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-zkrecipes/zkrecipes/integration/zkharness"
)

// shared is the single server most tests use, each under its own namespace.
var shared *zkharness.Cluster

func TestMain(m *testing.M) {
	zkharness.RunMain(m, func(c *zkharness.Cluster) {
		fmt.Fprintln(os.Stderr, "cacheit: shared cluster:", c)
		shared = c
	})
}
