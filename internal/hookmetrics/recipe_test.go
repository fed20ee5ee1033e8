package hookmetrics

import (
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestRecipes: a recipe's Recipe holds the series made for it once, says
// whether its holdings are leaderships, and keeps its live waits and
// holdings.
func TestRecipes(t *testing.T) {
	made := 0
	recipes := NewRecipes(nil, func(recipe, path string) string { made++; return recipe + "@" + path })
	m := recipes.Get(client.RecipeMutex, "/m")
	if m.Series != client.RecipeMutex+"@" || m.Leadership {
		t.Errorf("mutex: %+v", m)
	}
	for _, r := range []string{client.RecipeLatch, client.RecipeLeader} {
		if l := recipes.Get(r, "/l"); !l.Leadership {
			t.Errorf("%s: not a leadership", r)
		}
	}
	since := time.Now()
	m.BeginHold(since)
	if n := recipes.Get(client.RecipeMutex, "/other").Snapshot(time.Now()); n.Holds != 1 {
		t.Errorf("holds %d, want 1: not the same Recipe", n.Holds)
	}
	m.EndHold(since)
	if made != 3 {
		t.Errorf("%d series made, want 3", made)
	}
}

// TestIsLeadership: only latch and leader hold leaderships.
func TestIsLeadership(t *testing.T) {
	for _, r := range []string{client.RecipeMutex, client.RecipeSemaphore, client.RecipeWriteLock, "barrier", ""} {
		if IsLeadership(r) {
			t.Errorf("%q: a leadership", r)
		}
	}
}
