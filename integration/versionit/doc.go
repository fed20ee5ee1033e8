// Package versionit tests the library against ZooKeeper versions other than
// the harness's default, on the local backend (zkharness.WithVersion): a
// server without addWatch (zkharness.Version34, 3.4.13), where the clients
// fall back to a watch per node, and 3.9 (zkharness.Version39) beside it.
// The whole suites run on 3.9 through ZK_VERSION (scripts/test.sh).
package versionit
