package zkotel

// DefaultWaitBuckets are the bucket bounds, in seconds, advised for
// zkrecipes.acquire.duration: from 0.5 ms, one or two round trips to a
// nearby server when nobody else holds the lock, to 60 s, beyond which a
// wait is a stall.
var DefaultWaitBuckets = []float64{
	0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
	1, 2.5, 5, 10, 30, 60,
}

// DefaultHoldBuckets are the bucket bounds, in seconds, advised for
// zkrecipes.hold.duration: from 1 ms, a short critical section, through
// seconds and minutes, batch work under a lock or a lease, to a day, a
// long leadership term.
var DefaultHoldBuckets = []float64{
	0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60,
	300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600,
}

// DefaultStateBuckets are the bucket bounds, in seconds, advised for
// zkrecipes.session.state.duration: from 10 ms, a Suspended that a
// reconnect ends at once, through the seconds of a session timeout, to a
// day of being Connected.
var DefaultStateBuckets = []float64{
	0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60,
	300, 1800, 3600, 6 * 3600, 24 * 3600,
}

// DefaultRequestBuckets are the bucket bounds, in seconds, advised for
// zkrecipes.request.duration: from 0.1 ms, a read from a server on the
// same host, to 10 s, a request caught in a leader election (as
// contrib/zkprom's).
var DefaultRequestBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
	0.25, 0.5, 1, 2.5, 5, 10,
}
