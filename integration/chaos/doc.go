// Package chaos is the foundation of the chaos suite (issue 13): a seeded
// fault engine over the test harness, a history recorder of lock operations
// with their invoke and return instants (one process clock), and the checks
// run over it: a porcupine model of a mutex (one holder), a fenced store, the
// margin between a holder's loss signal and the next grant, and the nodes
// left behind. It is test-only code: it imports the harness.
package chaos
