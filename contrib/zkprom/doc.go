// Package zkprom turns the hooks of a zkrecipes client (client.Hooks) into
// Prometheus metrics: session states and the time spent in each, retries,
// pending guaranteed deletes, how long recipes wait for a lock, a lease or
// leadership and how the wait ended, how long holdings last and how many are
// lost, how many waits and holdings there are now and how old the oldest
// is, cache events, and each request's latency and errors by op.
//
//	m, err := zkprom.New()                          // namespace "zkrecipes"
//	reg.MustRegister(m)                             // m is a prometheus.Collector
//	c, err := client.New(client.WithServers(addrs...), client.WithHooks(m.Hooks()))
//
// It lives in its own Go module, so that the library itself never imports
// client_golang.
//
// # Metrics
//
// With the default namespace:
//
//	zkrecipes_session_state_changes_total{state}        counter
//	zkrecipes_session_state_duration_seconds{state}     histogram: time spent in state, observed on leaving it
//	zkrecipes_session_state{state}                      gauge: 1 for the current state, 0 for the others
//	zkrecipes_retries_total                             counter: failed attempts the retry policy retries
//	zkrecipes_guaranteed_deletes_pending                gauge
//	zkrecipes_acquire_wait_seconds{recipe,outcome}      histogram: outcome acquired | busy | cancelled | failed
//	zkrecipes_hold_seconds{recipe,ended}                histogram: ended released | lost
//	zkrecipes_holdings_lost_total{recipe}               counter
//	zkrecipes_cache_events_total{type}                  counter
//	zkrecipes_waiters{recipe}                           gauge: waits under way now
//	zkrecipes_holders{recipe}                           gauge: locks and leases held now (each lease counts)
//	zkrecipes_leaders{recipe}                           gauge: leaderships held now (latch, leader)
//	zkrecipes_oldest_holding_age_seconds{recipe}        gauge: age of the oldest holding now, 0 when none
//	zkrecipes_oldest_wait_age_seconds{recipe}           gauge: age of the oldest wait now, 0 when none
//	zkrecipes_request_duration_seconds{op}              histogram: a request's write to its reply
//	zkrecipes_request_errors_total{op,error}            counter: failed requests by error class
//
// state is the client's State as it spells it (Connected, Suspended,
// Reconnected, Lost), recipe one of client's Recipe constants (mutex,
// rwlock-read, semaphore, latch, leader...), type a cache event type as
// Curator names it (NODE_CREATED, NODE_CHANGED, NODE_DELETED, INITIALIZED).
// outcome is client.AcquireOutcome's Label: busy is a try (TryLock,
// TryAcquire) that found the holding taken, its expected answer;
// cancelled a wait whose caller's context ended; failed any other error,
// the one to alert on.
// op is one of client's Op constants (create, delete, exists, getData,
// setData, getChildren, multi, sync...), error client.RequestHook's Label
// of a failed request (no_node, node_exists, bad_version, not_empty:
// answers the recipes expect as part of their work; no_auth,
// connection_loss, session_expired, closed, error: trouble).
//
// The gauges come from pairs of hooks (a wait's Acquire and its outcome, a
// holding's Held and its Released), so they cannot drift: a holding lost
// and then released, a wait cancelled, a try that found the lock busy
// each leave them as they should be. Leaderships (recipes latch and
// leader) are counted by zkrecipes_leaders, every other holding by
// zkrecipes_holders.
//
// Every label has a handful of values; the path of a lock has as many as
// the application has locks, so it is a label only with WithPathLabel,
// and then only for the first DefaultMaxPaths distinct paths (WithMaxPaths
// sets the cap): the rest share the value PathOther.
//
// # Buckets
//
// Waits (DefaultWaitBuckets) run from 0.5 ms, an uncontended acquire on a
// nearby server being one or two round trips, to a minute, past which a
// wait is a stall to alert on rather than a latency to measure. Holds
// (DefaultHoldBuckets) run from 1 ms, a short critical section, to a day, a
// long leadership term. Time in a state (DefaultStateBuckets) runs from
// 10 ms, a quick reconnect, to a day of being Connected. WithWaitBuckets,
// WithHoldBuckets and WithStateBuckets change them.
//
// # Cost
//
// The hooks run on the client's goroutines, some with its locks held. Each
// one is a few atomic operations: the series of a state, an outcome or a
// cache event type are resolved once in New, those of a recipe the first
// time it reports (then read from a sync.Map), and client_golang's
// counters, gauges and histograms update without locks.
//
// The gauges describe one client: give each client its own Metrics, told
// apart by WithConstLabels when several are registered on one registry.
package zkprom
