package zkprom

import "github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"

// DefaultWaitBuckets are the upper bounds, in seconds, of
// zkrecipes_acquire_wait_seconds: from 0.5 ms, one or two round trips to a
// nearby server when nobody else holds the lock, to 60 s, beyond which a
// wait is a stall (the +Inf bucket counts those).
var DefaultWaitBuckets = hookmetrics.WaitBuckets()

// DefaultHoldBuckets are the upper bounds, in seconds, of
// zkrecipes_hold_seconds: from 1 ms, a short critical section, through
// seconds and minutes, batch work under a lock or a lease, to a day, a
// long leadership term.
var DefaultHoldBuckets = hookmetrics.HoldBuckets()

// DefaultStateBuckets are the upper bounds, in seconds, of
// zkrecipes_session_state_duration_seconds: from 10 ms, a Suspended that a
// reconnect ends at once, through the seconds of a session timeout, to a
// day of being Connected.
var DefaultStateBuckets = hookmetrics.StateBuckets()

// DefaultRequestBuckets are the upper bounds, in seconds, of
// zkrecipes_request_duration_seconds: from 0.1 ms, a read from a server on
// the same host, through the milliseconds of a write the ensemble logs
// and agrees on, to 10 s, a request caught in a leader election (the +Inf
// bucket counts the rest, and a connection lost with requests in flight).
var DefaultRequestBuckets = hookmetrics.RequestBuckets()
