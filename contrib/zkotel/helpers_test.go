package zkotel

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// rig is a Telemetry on SDK providers whose output the test reads back: a
// ManualReader for the metrics, an in-memory exporter for the spans.
type rig struct {
	t      *Telemetry
	reader *sdkmetric.ManualReader
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
}

func newRig(tb testing.TB, opts ...Option) *rig {
	tb.Helper()
	r := &rig{reader: sdkmetric.NewManualReader(), spans: tracetest.NewInMemoryExporter()}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	tb.Cleanup(func() {
		_ = mp.Shutdown(context.Background())
		_ = r.tp.Shutdown(context.Background())
	})
	t, err := New(append([]Option{WithMeterProvider(mp), WithTracerProvider(r.tp)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = t.Close() })
	r.t = t
	return r
}

// collect reads the metrics now, by name.
func (r *rig) collect(tb testing.TB) map[string]metricdata.Metrics {
	tb.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		tb.Fatal(err)
	}
	out := make(map[string]metricdata.Metrics)
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != ScopeName {
			tb.Errorf("scope %q", sm.Scope.Name)
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// has reports whether set holds every one of kv.
func has(set attribute.Set, kv ...attribute.KeyValue) bool {
	for _, want := range kv {
		if v, ok := set.Value(want.Key); !ok || v != want.Value {
			return false
		}
	}
	return true
}

// sum is the value of the int64 sum (counter, up-down counter) or gauge
// point of m with the attributes kv; ok false when there is none.
func sum(tb testing.TB, m metricdata.Metrics, kv ...attribute.KeyValue) (v int64, ok bool) {
	tb.Helper()
	var points []metricdata.DataPoint[int64]
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		points = d.DataPoints
	case metricdata.Gauge[int64]:
		points = d.DataPoints
	default:
		tb.Fatalf("%s: %T, not an int64 sum or gauge", m.Name, m.Data)
	}
	for _, p := range points {
		if p.Attributes.Len() == len(kv) && has(p.Attributes, kv...) {
			return p.Value, true
		}
	}
	return 0, false
}

// wantSum fails unless the point of m with the attributes kv is want.
func wantSum(tb testing.TB, ms map[string]metricdata.Metrics, name string, want int64, kv ...attribute.KeyValue) {
	tb.Helper()
	m, ok := ms[name]
	if !ok {
		tb.Errorf("no metric %s", name)
		return
	}
	if got, ok := sum(tb, m, kv...); !ok || got != want {
		tb.Errorf("%s%v = %d (found %v), want %d", name, kv, got, ok, want)
	}
}

// hist is the histogram point of m with the attributes kv.
func hist(tb testing.TB, ms map[string]metricdata.Metrics, name string, kv ...attribute.KeyValue) metricdata.HistogramDataPoint[float64] {
	tb.Helper()
	m, ok := ms[name]
	if !ok {
		tb.Fatalf("no metric %s", name)
	}
	d, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		tb.Fatalf("%s: %T, not a float64 histogram", name, m.Data)
	}
	for _, p := range d.DataPoints {
		if p.Attributes.Len() == len(kv) && has(p.Attributes, kv...) {
			return p
		}
	}
	tb.Fatalf("%s has no point %v", name, kv)
	return metricdata.HistogramDataPoint[float64]{}
}

// bucket is the count of p's bucket whose upper bound is le.
func bucket(tb testing.TB, p metricdata.HistogramDataPoint[float64], le float64) uint64 {
	tb.Helper()
	for i, b := range p.Bounds {
		if b == le {
			return p.BucketCounts[i]
		}
	}
	tb.Fatalf("no bucket le=%v in %v", le, p.Bounds)
	return 0
}
