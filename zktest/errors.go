package zktest

import "errors"

// ErrNoBackend reports that no backend can run ZooKeeper here: the requested
// backend (or, when the choice is automatic, neither backend) is unavailable.
// The returned error wraps it together with the reason.
var ErrNoBackend = errors.New("zktest: no usable ZooKeeper backend")

// ErrBadIndex reports a server index outside [0, Size()).
var ErrBadIndex = errors.New("zktest: server index out of range")

// ErrClosed reports a call on a Cluster that has already been closed.
var ErrClosed = errors.New("zktest: cluster closed")

// ErrInvalidOption reports an option value Start cannot use, such as
// WithServers(0) or an unknown backend name.
var ErrInvalidOption = errors.New("zktest: invalid option")

// ErrNotRunning reports PauseServer or ResumeServer aimed at a server that is
// stopped (by StopServer or KillServer); StartServer brings it back first.
var ErrNotRunning = errors.New("zktest: server is stopped")
