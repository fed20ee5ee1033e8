package chaos

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// Workload is what a Scenario needs of one recipe: its model, whether its
// holdings are fenced, its paths and how to make a participant's worker.
// The tests and the soak command (cmd/zkchaos) take them from Workloads.
type Workload struct {
	Recipe   string
	Capacity Capacity
	Fenced   bool
	Dirs     []string
	Start    func(ctx context.Context, c *client.Client, p Part) (run func(context.Context), err error)
	// Settle is the recipe's own check once the calm phase is over (see
	// Scenario.Settle); nil for none.
	Settle func(ctx context.Context, checker *client.Client) []Unsettled
	// Fresh, when set, makes the workload anew for each scenario: for a
	// workload whose Start and Settle share what one run's workers did.
	Fresh func() Workload
	// Kinds are the fault kinds its scenarios draw (nil: AllKinds).
	Kinds []Kind
}

// Scenario returns a scenario of w; the caller sets the run's settings
// (cluster, namespace, seed, participants, phases).
func (w Workload) Scenario() Scenario {
	if w.Fresh != nil {
		w = w.Fresh()
	}
	return Scenario{Recipe: w.Recipe, Capacity: w.Capacity, Fenced: w.Fenced, Dirs: slices.Clone(w.Dirs),
		Start: w.Start, Settle: w.Settle, Kinds: slices.Clone(w.Kinds)}
}

var workloads = map[string]Workload{}

// register adds w to the workloads; each recipe's file registers its own.
func register(w Workload) { workloads[w.Recipe] = w }

// WorkloadOf returns the workload of the named recipe.
func WorkloadOf(recipe string) (Workload, error) {
	w, ok := workloads[recipe]
	if !ok {
		return Workload{}, fmt.Errorf("chaos: no workload %q (have %v)", recipe, WorkloadNames())
	}
	return w, nil
}

// WorkloadNames lists the recipes that have a workload, sorted.
func WorkloadNames() []string {
	var names []string
	for n := range workloads {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func init() {
	register(Workload{
		Recipe:   "mutex",
		Capacity: OneHolder,
		Fenced:   true,
		Dirs:     []string{"/chaos/mutex"},
		Start: func(_ context.Context, c *client.Client, p Part) (func(context.Context), error) {
			m, err := mutex.New(c, "/chaos/mutex")
			if err != nil {
				return nil, err
			}
			w := &MutexWorker{Part: p, M: m}
			return w.Run, nil
		},
	})
}
