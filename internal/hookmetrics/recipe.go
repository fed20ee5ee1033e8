package hookmetrics

import "github.com/go-zkrecipes/zkrecipes/client"

// Recipe is what an adapter keeps of one recipe (and path, when the
// metrics are by path): the backend's series S, and what it has now, for
// the gauges. Its Live is changed by the hooks in pairs (BeginWait and
// EndWait around a wait, BeginHold at Held and EndHold at Released).
type Recipe[S any] struct {
	Series     S    // the backend's series or attribute sets of the recipe
	Leadership bool // its holdings are leaderships (IsLeadership)
	Live            // its waits under way and holdings now
}

// NewRecipes returns the Table of the recipes: each Recipe made the first
// time its recipe (and path) reports, its Series by newSeries, given the
// recipe's name and its path label ("" when paths is nil: not by path).
func NewRecipes[S any](paths *Paths, newSeries func(recipe, path string) S) *Table[*Recipe[S]] {
	return NewTable(paths, func(recipe, path string) *Recipe[S] {
		return &Recipe[S]{Series: newSeries(recipe, path), Leadership: IsLeadership(recipe)}
	})
}

// IsLeadership reports whether a recipe's holdings are leaderships: those
// of client.RecipeLatch and client.RecipeLeader, counted by the leaders
// gauge rather than the holders gauge.
func IsLeadership(recipe string) bool {
	return recipe == client.RecipeLatch || recipe == client.RecipeLeader
}
