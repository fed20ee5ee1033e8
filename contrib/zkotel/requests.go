package zkotel

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// opMeasures are the attribute sets of one op, made in New.
type opMeasures struct {
	rec    measure
	errors [len(hookmetrics.ErrorLabels)]measure
}

func (t *Telemetry) onRequest(r client.RequestHook) {
	ctx := context.Background()
	m := &t.ops[hookmetrics.OpIndex(r.Op)]
	t.reqTime.Record(ctx, r.Duration.Seconds(), m.rec.rec...)
	if r.Err != nil {
		t.reqErrors.Add(ctx, 1, m.errors[hookmetrics.ErrorIndex(r.Label())].add...)
	}
}
