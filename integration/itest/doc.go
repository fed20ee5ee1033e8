// Package itest holds the helpers that the integration test packages share:
// a client on a real server in a namespace of the test's own, polling and
// waiting helpers that fail the test with what they waited for, a goroutine
// leak check, and the runner of the Java programs that the Curator interop
// tests start. It is imported by tests only.
package itest
