package zkprom

// DefaultWaitBuckets are the upper bounds, in seconds, of
// zkrecipes_acquire_wait_seconds: from 0.5 ms, one or two round trips to a
// nearby server when nobody else holds the lock, to 60 s, beyond which a
// wait is a stall (the +Inf bucket counts those).
var DefaultWaitBuckets = []float64{
	0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
	1, 2.5, 5, 10, 30, 60,
}

// DefaultHoldBuckets are the upper bounds, in seconds, of
// zkrecipes_hold_seconds: from 1 ms, a short critical section, through
// seconds and minutes, batch work under a lock or a lease, to a day, a
// long leadership term.
var DefaultHoldBuckets = []float64{
	0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60,
	300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600,
}

// DefaultStateBuckets are the upper bounds, in seconds, of
// zkrecipes_session_state_duration_seconds: from 10 ms, a Suspended that a
// reconnect ends at once, through the seconds of a session timeout, to a
// day of being Connected.
var DefaultStateBuckets = []float64{
	0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60,
	300, 1800, 3600, 6 * 3600, 24 * 3600,
}

// DefaultRequestBuckets are the upper bounds, in seconds, of
// zkrecipes_request_duration_seconds: from 0.1 ms, a read from a server on
// the same host, through the milliseconds of a write the ensemble logs
// and agrees on, to 10 s, a request caught in a leader election (the +Inf
// bucket counts the rest, and a connection lost with requests in flight).
var DefaultRequestBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
	0.25, 0.5, 1, 2.5, 5, 10,
}
