// Package hookmetrics is what the metrics adapters of client.Hooks
// (contrib/zkprom for Prometheus, contrib/zkotel for OpenTelemetry) share,
// whatever their backend: the live sets of waits and holdings behind the
// gauges, the cap on the path's label values, the label values of
// requests, states and cache events, the default histogram buckets and
// the checks of the options both take. What is the backend's own (its
// metrics, descriptors, instruments and attribute sets) stays in the
// adapters; this package imports the standard library and package client
// alone, so that the library never compiles a metrics backend.
//
// The adapters are modules of their own that import this package across
// the module boundary (the internal rule goes by import path). A user's
// build may select a newer root module than the one a contrib release
// was built against, so this package's API is kept compatible: a new
// root release adds to it and does not change or remove what a released
// adapter uses.
package hookmetrics
