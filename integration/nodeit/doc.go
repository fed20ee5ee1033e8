// Package nodeit holds the tests of recipes/node against real ZooKeeper
// servers (started by zktest): ports of Curator's TestPersistentNode,
// TestPersistentEphemeralNode and TestPersistentTtlNode, under link
// faults (faultlink), session expiry, server restarts and a 3-server
// ensemble. The package has no non-test code but this file.
package nodeit
