package zkotel_test

import (
	"context"
	"fmt"
	"log"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/contrib/zkotel"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// A wait for a mutex inside an application's span: the acquire span is its
// child, and the wait is recorded in zkrecipes.acquire.duration. Here the
// hooks are called as a mutex calls them, on SDK providers that keep what
// they get in memory.
func Example() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tel, err := zkotel.New(zkotel.WithTracerProvider(tp), zkotel.WithMeterProvider(mp))
	if err != nil {
		log.Fatal(err)
	}
	defer tel.Close()

	// What client.New(..., client.WithHooks(tel.Hooks())) and a mutex's
	// Lock(ctx) report:
	ctx, job := tp.Tracer("app").Start(context.Background(), "run job")
	_, done := tel.Hooks().Acquire(ctx, client.Acquisition{Recipe: client.RecipeMutex, Path: "/locks/job"})
	done(client.AcquireOutcome{Wait: time.Millisecond})
	job.End()

	for _, s := range spans.Ended() {
		fmt.Printf("span %q, parent %q\n", s.Name(), parentName(spans.Ended(), s))
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "zkrecipes.acquire.duration" {
			p := h.DataPoints[0]
			outcome, _ := p.Attributes.Value(zkotel.AttrOutcome)
			fmt.Printf("%s (%s): %d wait, outcome %s\n", m.Name, m.Unit, p.Count, outcome.String())
		}
	}
	// Output:
	// span "zkrecipes.acquire mutex", parent "run job"
	// span "run job", parent ""
	// zkrecipes.acquire.duration (s): 1 wait, outcome acquired
}

// parentName is the name of s's parent among spans.
func parentName(spans []sdktrace.ReadOnlySpan, s sdktrace.ReadOnlySpan) string {
	for _, p := range spans {
		if p.SpanContext().SpanID() == s.Parent().SpanID() {
			return p.Name()
		}
	}
	return ""
}

// Wiring a service: the process's providers (set up with exporters
// elsewhere), one Telemetry per client; a Lock under a request's span
// makes its acquire span a child of that span.
func Example_client() {
	tp := sdktrace.NewTracerProvider() // with an exporter, say OTLP
	mp := sdkmetric.NewMeterProvider() // with a reader, say a periodic OTLP one
	tel, err := zkotel.New(zkotel.WithTracerProvider(tp), zkotel.WithMeterProvider(mp))
	if err != nil {
		log.Fatal(err)
	}
	defer tel.Close()

	c, err := client.New(client.WithServers("zk1:2181", "zk2:2181", "zk3:2181"), client.WithHooks(tel.Hooks()))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx, span := tp.Tracer("jobs").Start(ctx, "run job")
	defer span.End()
	lock, err := mutex.New(c, "/locks/job")
	if err != nil {
		log.Fatal(err)
	}
	if err := lock.Lock(ctx); err != nil { // span "zkrecipes.acquire mutex", child of "run job"
		log.Fatal(err)
	}
	defer func() { _ = lock.Unlock(ctx) }()
}
