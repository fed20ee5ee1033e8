package hookmetrics

import "github.com/go-zkrecipes/zkrecipes/client"

// The ways a holding ends, the values of the adapters' ended label
// (attribute) of the hold time.
const (
	EndedReleased = "released" // its holder released it
	EndedLost     = "lost"     // it may be gone: connection suspended, session lost, node deleted
)

// Outcomes are a backend's values (a series, an attribute set) of each
// outcome of a wait, by client.AcquireOutcome.Label.
type Outcomes[V any] struct {
	acquired, busy, cancelled, failed V
}

// NewOutcomes returns the Outcomes whose value of each outcome is
// newValue's, called now for each of client.OutcomeAcquired,
// client.OutcomeBusy, client.OutcomeCancelled and client.OutcomeFailed.
func NewOutcomes[V any](newValue func(outcome string) V) Outcomes[V] {
	return Outcomes[V]{
		acquired:  newValue(client.OutcomeAcquired),
		busy:      newValue(client.OutcomeBusy),
		cancelled: newValue(client.OutcomeCancelled),
		failed:    newValue(client.OutcomeFailed),
	}
}

// Of returns the value of outcome, a client.AcquireOutcome.Label:
// client.OutcomeFailed's for any other label.
func (o *Outcomes[V]) Of(outcome string) V {
	switch outcome {
	case client.OutcomeAcquired:
		return o.acquired
	case client.OutcomeBusy:
		return o.busy
	case client.OutcomeCancelled:
		return o.cancelled
	}
	return o.failed
}

// Endings are a backend's values (a series, an attribute set) of each way
// a holding ends: EndedReleased and EndedLost.
type Endings[V any] struct {
	released, lost V
}

// NewEndings returns the Endings whose value of each way is newValue's,
// called now for EndedReleased and EndedLost.
func NewEndings[V any](newValue func(ended string) V) Endings[V] {
	return Endings[V]{released: newValue(EndedReleased), lost: newValue(EndedLost)}
}

// Of returns the value of a holding lost (a client.Release's Lost) or
// released.
func (e *Endings[V]) Of(lost bool) V {
	if lost {
		return e.lost
	}
	return e.released
}
