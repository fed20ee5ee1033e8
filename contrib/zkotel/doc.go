// Package zkotel turns the hooks of a zkrecipes client (client.Hooks) into
// OpenTelemetry metrics, through a metric.MeterProvider, and spans, through
// a trace.TracerProvider: one span for each wait for a lock, a read or
// write lock, a lease or leadership.
//
//	t, err := zkotel.New(zkotel.WithMeterProvider(mp), zkotel.WithTracerProvider(tp))
//	defer t.Close()
//	c, err := client.New(client.WithServers(addrs...), client.WithHooks(t.Hooks()))
//
// Without those options it uses the global providers (otel.GetMeterProvider,
// otel.GetTracerProvider). It lives in its own Go module, so that the
// library itself never imports OpenTelemetry.
//
// # Metrics
//
//	zkrecipes.session.state.changes       counter {change}         zkrecipes.session.state: the state entered
//	zkrecipes.session.state.duration      histogram s              zkrecipes.session.state: the state left
//	zkrecipes.session.state               gauge 1                  zkrecipes.session.state: 1 for the current state, 0 for the others
//	zkrecipes.retries                     counter {retry}
//	zkrecipes.guaranteed_deletes.pending  updowncounter {delete}
//	zkrecipes.acquire.duration            histogram s              zkrecipes.recipe, zkrecipes.outcome (acquired | busy | cancelled | failed)
//	zkrecipes.hold.duration               histogram s              zkrecipes.recipe, zkrecipes.ended (released | lost)
//	zkrecipes.holdings.lost               counter {holding}        zkrecipes.recipe
//	zkrecipes.cache.events                counter {event}          zkrecipes.cache.event.type
//	zkrecipes.waiters                     updowncounter {wait}     zkrecipes.recipe: waits under way now
//	zkrecipes.holders                     updowncounter {holding}  zkrecipes.recipe: locks and leases held now
//	zkrecipes.leaders                     updowncounter {leadership} zkrecipes.recipe (latch, leader): leaderships held now
//	zkrecipes.holding.oldest.age          gauge s                  zkrecipes.recipe: age of the oldest holding now, 0 when none
//	zkrecipes.wait.oldest.age             gauge s                  zkrecipes.recipe: age of the oldest wait now, 0 when none
//	zkrecipes.request.duration            histogram s              zkrecipes.request.op: a request's write to its reply
//	zkrecipes.request.errors              counter {request}        zkrecipes.request.op, error.type: failed requests
//
// The state is spelt as the client spells it (Connected, Suspended,
// Reconnected, Lost), the recipe is one of client's Recipe constants, the
// cache event type as Curator names it (NODE_CREATED...), the op one of
// client's Op constants (create, delete, exists, getData, setData,
// getChildren, multi, sync...), error.type client.RequestHook's Label of a
// failed request (no_node, node_exists, bad_version, not_empty: answers
// the recipes expect; no_auth, connection_loss, session_expired, closed,
// error: trouble). The gauges come from pairs of hooks (a wait's Acquire
// and its outcome, a holding's Held and its Released), so they cannot
// drift; each lease of a semaphore counts. The path of a lock is an
// attribute of the metrics only with WithPathAttribute (it has as many
// values as the application has locks), and then only for the first
// DefaultMaxPaths distinct paths (WithMaxPaths): the rest share the value
// PathOther. The histograms advise explicit buckets (DefaultWaitBuckets,
// DefaultHoldBuckets, DefaultStateBuckets, DefaultRequestBuckets, the same
// as contrib/zkprom's); the options WithWaitBuckets and the like, or an
// SDK View, replace them.
//
// # Spans
//
// Each wait is a span "zkrecipes.acquire <recipe>" (zkrecipes.acquire
// mutex, zkrecipes.acquire latch...), a child of the span in the context
// given to Lock, Acquire, Run and the like, with the attributes
// zkrecipes.recipe and zkrecipes.path, and zkrecipes.outcome when it ends.
// Its context is the one the recipe waits under, so whatever the wait
// does that is traced nests under it. The outcome is
// client.AcquireOutcome's Label. A failed wait records the error and sets
// the status Error; a busy one (a TryLock or TryAcquire that found the
// holding taken) and a cancelled one (the caller's context ended) keep the
// status Unset. The acquire duration is recorded with the span's
// context, so an SDK that keeps exemplars links the histogram to the
// trace.
//
// # Cost
//
// The hooks run on the client's goroutines, some with its locks held: each
// metric update uses attribute sets made once (in New, or the first time a
// recipe reports), the gauges are read from atomics by a callback, and no
// hook waits for anything. Give each client its own Telemetry (the gauges
// describe one client), told apart by WithAttributes.
package zkotel
