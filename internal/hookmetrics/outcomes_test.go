package hookmetrics

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestOutcomes: each outcome a wait can have gets its own value, made
// once, and any other label the failed one's.
func TestOutcomes(t *testing.T) {
	var asked []string
	o := NewOutcomes(func(outcome string) string { asked = append(asked, outcome); return "v:" + outcome })
	if len(asked) != 4 {
		t.Fatalf("made for %v, want the four outcomes", asked)
	}
	for _, c := range []struct {
		out  client.AcquireOutcome
		want string
	}{
		{client.AcquireOutcome{}, "v:" + client.OutcomeAcquired},
		{client.AcquireOutcome{Err: fmt.Errorf("taken: %w", zkrecipes.ErrBusy)}, "v:" + client.OutcomeBusy},
		{client.AcquireOutcome{Err: context.Canceled, Cancelled: true}, "v:" + client.OutcomeCancelled},
		{client.AcquireOutcome{Err: errors.New("no")}, "v:" + client.OutcomeFailed},
	} {
		if got := o.Of(c.out.Label()); got != c.want {
			t.Errorf("%+v (label %q): %q, want %q", c.out, c.out.Label(), got, c.want)
		}
	}
	if got := o.Of("some_new_outcome"); got != "v:"+client.OutcomeFailed {
		t.Errorf("an unknown outcome: %q, want the failed one's", got)
	}
}

// TestEndings: a lost holding and a released one each get their value.
func TestEndings(t *testing.T) {
	e := NewEndings(func(ended string) string { return "v:" + ended })
	if got := e.Of(true); got != "v:"+EndedLost {
		t.Errorf("lost: %q", got)
	}
	if got := e.Of(false); got != "v:"+EndedReleased {
		t.Errorf("released: %q", got)
	}
}
