package zkprom

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// knownOps are the op label's values (client's Op constants); a name the
// client does not list here is counted as client.OpOther.
var knownOps = [...]string{
	client.OpCreate, client.OpDelete, client.OpExists, client.OpGetData, client.OpSetData,
	client.OpGetChildren, client.OpMulti, client.OpSync, client.OpGetACL, client.OpSetACL,
	client.OpAddWatch, client.OpRemoveWatches, client.OpOther,
}

// knownErrors are the error label's values: client.RequestHook.Label's
// for a failed request.
var knownErrors = [...]string{
	client.RequestNoNode, client.RequestNodeExists, client.RequestBadVersion, client.RequestNotEmpty,
	client.RequestNoAuth, client.RequestConnectionLoss, client.RequestSessionExpired, client.RequestClosed,
	client.RequestError,
}

func opIndex(op string) int {
	for i, o := range knownOps {
		if o == op {
			return i
		}
	}
	return len(knownOps) - 1 // other
}

func errorIndex(label string) int {
	for i, e := range knownErrors {
		if e == label {
			return i
		}
	}
	return len(knownErrors) - 1 // error
}

// opSeries are the series of one op, each made the first time it is used
// (a series of an op the application never sends is never exported).
type opSeries struct {
	duration atomic.Pointer[observer]
	errors   [len(knownErrors)]atomic.Pointer[counter]
}

type observer struct{ prometheus.Observer }

type counter struct{ prometheus.Counter }

func (m *Metrics) onRequest(r client.RequestHook) {
	i := opIndex(r.Op)
	s := &m.ops[i]
	d := s.duration.Load()
	if d == nil {
		s.duration.CompareAndSwap(nil, &observer{m.reqTime.WithLabelValues(knownOps[i])})
		d = s.duration.Load()
	}
	d.Observe(r.Duration.Seconds())
	if r.Err == nil {
		return
	}
	j := errorIndex(r.Label())
	c := s.errors[j].Load()
	if c == nil {
		s.errors[j].CompareAndSwap(nil, &counter{m.reqErrors.WithLabelValues(knownOps[i], knownErrors[j])})
		c = s.errors[j].Load()
	}
	c.Inc()
}
