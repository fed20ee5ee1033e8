package zkotel

import "github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"

// DefaultWaitBuckets are the bucket bounds, in seconds, advised for
// zkrecipes.acquire.duration: from 0.5 ms, one or two round trips to a
// nearby server when nobody else holds the lock, to 60 s, beyond which a
// wait is a stall.
var DefaultWaitBuckets = hookmetrics.WaitBuckets()

// DefaultHoldBuckets are the bucket bounds, in seconds, advised for
// zkrecipes.hold.duration: from 1 ms, a short critical section, through
// seconds and minutes, batch work under a lock or a lease, to a day, a
// long leadership term.
var DefaultHoldBuckets = hookmetrics.HoldBuckets()

// DefaultStateBuckets are the bucket bounds, in seconds, advised for
// zkrecipes.session.state.duration: from 10 ms, a Suspended that a
// reconnect ends at once, through the seconds of a session timeout, to a
// day of being Connected.
var DefaultStateBuckets = hookmetrics.StateBuckets()

// DefaultRequestBuckets are the bucket bounds, in seconds, advised for
// zkrecipes.request.duration: from 0.1 ms, a read from a server on the
// same host, to 10 s, a request caught in a leader election (as
// contrib/zkprom's).
var DefaultRequestBuckets = hookmetrics.RequestBuckets()
