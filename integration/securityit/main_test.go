// Package securityit tests TLS to ZooKeeper's secure client port and the
// ACLs of the nodes recipes create, against a real server: one started
// with zktest.WithTLS, whose plain port serves the ACL tests.
package securityit

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// server is the one server every test uses, each under its own namespace.
var server *zktest.Cluster

func TestMain(m *testing.M) {
	zktest.RunMain(m, func(c *zktest.Cluster) {
		fmt.Fprintln(os.Stderr, "securityit: shared cluster:", c, "secure:", c.SecureConnectString())
		server = c
		itest.KeepRoot(c)
	}, zktest.WithTLS())
}
