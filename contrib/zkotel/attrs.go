package zkotel

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// The attributes of the metrics and spans.
const (
	AttrRecipe    = attribute.Key("zkrecipes.recipe")           // one of client's Recipe constants
	AttrPath      = attribute.Key("zkrecipes.path")             // a recipe's path, a cache's root
	AttrOutcome   = attribute.Key("zkrecipes.outcome")          // how a wait ended: OutcomeAcquired...
	AttrEnded     = attribute.Key("zkrecipes.ended")            // how a holding ended: EndedReleased, EndedLost
	AttrState     = attribute.Key("zkrecipes.session.state")    // Connected, Suspended, Reconnected, Lost
	AttrCacheType = attribute.Key("zkrecipes.cache.event.type") // NODE_CREATED, NODE_CHANGED, NODE_DELETED, INITIALIZED
	AttrOp        = attribute.Key("zkrecipes.request.op")       // a request's op: one of client's Op constants
	AttrErrorType = attribute.Key("error.type")                 // OpenTelemetry's: a failed request's class, client.RequestHook.Label
)

var ownKeys = []attribute.Key{AttrRecipe, AttrPath, AttrOutcome, AttrEnded, AttrState, AttrCacheType, AttrOp, AttrErrorType}

// The values of AttrOutcome: the client's, by the rule of
// client.AcquireOutcome.Label.
const (
	OutcomeAcquired  = client.OutcomeAcquired  // the holding was granted
	OutcomeBusy      = client.OutcomeBusy      // a try found it taken (TryLock of a held lock, no lease free)
	OutcomeCancelled = client.OutcomeCancelled // the caller's context ended first
	OutcomeFailed    = client.OutcomeFailed    // the wait failed otherwise
)

// The values of AttrEnded.
const (
	EndedReleased = hookmetrics.EndedReleased // "released": its holder released it
	EndedLost     = hookmetrics.EndedLost     // "lost": it may be gone: connection suspended, session lost, node deleted
)
