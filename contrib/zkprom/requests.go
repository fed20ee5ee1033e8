package zkprom

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// opSeries are the series of one op, each made the first time it is used
// (a series of an op the application never sends is never exported).
type opSeries struct {
	duration atomic.Pointer[observer]
	errors   [len(hookmetrics.ErrorLabels)]atomic.Pointer[counter]
}

type observer struct{ prometheus.Observer }

type counter struct{ prometheus.Counter }

func (m *Metrics) onRequest(r client.RequestHook) {
	i := hookmetrics.OpIndex(r.Op)
	s := &m.ops[i]
	d := s.duration.Load()
	if d == nil {
		s.duration.CompareAndSwap(nil, &observer{m.reqTime.WithLabelValues(hookmetrics.OpLabels[i])})
		d = s.duration.Load()
	}
	d.Observe(r.Duration.Seconds())
	if r.Err == nil {
		return
	}
	j := hookmetrics.ErrorIndex(r.Label())
	c := s.errors[j].Load()
	if c == nil {
		s.errors[j].CompareAndSwap(nil, &counter{m.reqErrors.WithLabelValues(hookmetrics.OpLabels[i], hookmetrics.ErrorLabels[j])})
		c = s.errors[j].Load()
	}
	c.Inc()
}
