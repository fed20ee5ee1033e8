package hookmetrics

// The default bucket bounds, in seconds, of the adapters' histograms
// (their DefaultWaitBuckets, DefaultHoldBuckets, DefaultStateBuckets and
// DefaultRequestBuckets, whose docs give the reasons). Each function
// returns a new slice, so that each adapter's variable is its own.

// WaitBuckets are the bounds of the acquire wait: from 0.5 ms, one or two
// round trips to a nearby server, to 60 s, beyond which a wait is a stall.
func WaitBuckets() []float64 {
	return []float64{
		0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
		1, 2.5, 5, 10, 30, 60,
	}
}

// HoldBuckets are the bounds of a holding's time: from 1 ms, a short
// critical section, to a day, a long leadership term.
func HoldBuckets() []float64 {
	return []float64{
		0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60,
		300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600,
	}
}

// StateBuckets are the bounds of the time in a session state: from 10 ms,
// a Suspended that a reconnect ends at once, to a day of being Connected.
func StateBuckets() []float64 {
	return []float64{
		0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60,
		300, 1800, 3600, 6 * 3600, 24 * 3600,
	}
}

// RequestBuckets are the bounds of a request's time: from 0.1 ms, a read
// from a server on the same host, to 10 s, a request caught in a leader
// election.
func RequestBuckets() []float64 {
	return []float64{
		0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
		0.25, 0.5, 1, 2.5, 5, 10,
	}
}
