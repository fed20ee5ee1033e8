// Package itest holds the helpers that the integration test packages share:
// a client on a real server in a namespace of the test's own, polling and
// waiting helpers that fail the test with what they waited for, a goroutine
// leak check, the runner of the Java programs that the Curator interop
// tests start, what the metrics adapters' tests script alike (one wait of
// each outcome and one cache event of each type on a real server, a wait
// reported through hooks as the recipes report it, the ways a wait ends
// and their outcomes), and what the repository's godoc examples and
// example programs share (RunExamples, ConnectExample, CheckRejectsFlags).
// It is imported by tests only; users of the library test with package
// zktest instead.
package itest
