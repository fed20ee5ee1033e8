package zkotel

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
)

// The attributes of the metrics and spans.
const (
	AttrRecipe    = attribute.Key("zkrecipes.recipe")           // one of client's Recipe constants
	AttrPath      = attribute.Key("zkrecipes.path")             // a recipe's path, a cache's root
	AttrOutcome   = attribute.Key("zkrecipes.outcome")          // how a wait ended: OutcomeAcquired...
	AttrEnded     = attribute.Key("zkrecipes.ended")            // how a holding ended: EndedReleased, EndedLost
	AttrState     = attribute.Key("zkrecipes.session.state")    // Connected, Suspended, Reconnected, Lost
	AttrCacheType = attribute.Key("zkrecipes.cache.event.type") // NODE_CREATED, NODE_CHANGED, NODE_DELETED, INITIALIZED
)

var ownKeys = []attribute.Key{AttrRecipe, AttrPath, AttrOutcome, AttrEnded, AttrState, AttrCacheType}

// The values of AttrOutcome.
const (
	OutcomeAcquired  = "acquired"  // the holding was granted
	OutcomeCancelled = "cancelled" // the caller's context ended first
	OutcomeFailed    = "failed"    // the wait failed otherwise
)

// The values of AttrEnded.
const (
	EndedReleased = "released" // its holder released it
	EndedLost     = "lost"     // it may be gone: connection suspended, session lost, node deleted
)

// Outcome is the AttrOutcome of a wait that ended with err: acquired
// (nil), cancelled (context.Canceled or context.DeadlineExceeded, which is
// how a recipe reports that its caller gave up) or failed.
func Outcome(err error) string {
	switch {
	case err == nil:
		return OutcomeAcquired
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return OutcomeCancelled
	}
	return OutcomeFailed
}
