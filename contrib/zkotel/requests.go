package zkotel

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// knownOps are the AttrOp values (client's Op constants); a name the
// client does not list here is recorded as client.OpOther.
var knownOps = [...]string{
	client.OpCreate, client.OpDelete, client.OpExists, client.OpGetData, client.OpSetData,
	client.OpGetChildren, client.OpMulti, client.OpSync, client.OpGetACL, client.OpSetACL,
	client.OpAddWatch, client.OpRemoveWatches, client.OpOther,
}

// knownErrors are the AttrErrorType values: client.RequestHook.Label's for
// a failed request.
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

// opMeasures are the attribute sets of one op, made in New.
type opMeasures struct {
	rec    measure
	errors [len(knownErrors)]measure
}

func (t *Telemetry) onRequest(r client.RequestHook) {
	ctx := context.Background()
	m := &t.ops[opIndex(r.Op)]
	t.reqTime.Record(ctx, r.Duration.Seconds(), m.rec.rec...)
	if r.Err != nil {
		t.reqErrors.Add(ctx, 1, m.errors[errorIndex(r.Label())].add...)
	}
}
