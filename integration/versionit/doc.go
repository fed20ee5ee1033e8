// Package versionit tests the library against ZooKeeper versions other than
// the harness's default, on the local backend (zktest.WithVersion): a
// server without addWatch (zktest.Version34, 3.4.13), where the clients
// fall back to a watch per node, and 3.9 (zktest.Version39) beside it.
// The whole suites run on 3.9 through ZK_VERSION (scripts/test.sh).
package versionit
