// Package integration holds zkrecipes' tests against real ZooKeeper servers,
// started by the harness in package zktest (testcontainers-go where a
// Docker engine answers, else local java processes). The package has no
// non-test code but this file.
package integration
