package discovery_test

import (
	"math"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// Ports of Curator's TestStrategies.

func instances(qty, startingAt int) []discovery.Instance {
	var l []discovery.Instance
	for i := range qty {
		l = append(l, discovery.Instance{Name: "foo", ID: strconv.Itoa(i + startingAt)})
	}
	return l
}

func TestStrategiesRandom(t *testing.T) {
	const qty, iterations = 10, 1000
	l := instances(qty, 0)
	s := discovery.Random()
	counts := make([]float64, qty)
	for range iterations {
		inst, ok := s.Pick(l)
		require.True(t, ok)
		id, _ := strconv.Atoi(inst.ID)
		counts[id]++
	}
	var mean, sq float64
	for _, c := range counts {
		mean += c / qty
	}
	for _, c := range counts {
		sq += (c - mean) * (c - mean)
	}
	sd := math.Sqrt(sq / (qty - 1))
	require.LessOrEqual(t, sd, float64(qty*2), "meager check for even distribution: %v", counts)
}

func TestStrategiesRoundRobin(t *testing.T) {
	const qty = 10
	l := instances(qty, 0)
	s := discovery.RoundRobin()
	for i := range qty {
		inst, _ := s.Pick(l)
		require.Equal(t, strconv.Itoa(i), inst.ID)
	}
	for i := range 1234 * qty {
		inst, _ := s.Pick(l)
		require.Equal(t, strconv.Itoa(i%qty), inst.ID)
	}
}

func TestStrategiesSticky(t *testing.T) {
	const qty = 10
	l := instances(qty, 0)
	s := discovery.Sticky(discovery.Random())
	require.Equal(t, -1, s.InstanceNumber())
	the, ok := s.Pick(l)
	require.True(t, ok)
	number := s.InstanceNumber()
	require.Equal(t, 0, number)
	for range 1000 {
		inst, _ := s.Pick(l)
		require.True(t, inst.Equal(the))
	}
	// The instance goes down: another is picked, and kept.
	l = instances(qty, qty)
	inst, _ := s.Pick(l)
	require.False(t, inst.Equal(the))
	require.NotEqual(t, number, s.InstanceNumber())
	the = inst
	for range 1000 {
		inst, _ := s.Pick(l)
		require.True(t, inst.Equal(the))
	}
	// Changed data counts as gone, as Curator's equals says.
	l2 := append([]discovery.Instance(nil), l...)
	for i := range l2 {
		l2[i].Port = 1
	}
	inst, _ = s.Pick(l2)
	require.False(t, inst.Equal(the))
}

func TestStrategiesEmpty(t *testing.T) {
	for _, s := range []discovery.Strategy{discovery.RoundRobin(), discovery.Random(), discovery.Sticky(nil), &discovery.StickyStrategy{}} {
		_, ok := s.Pick(nil)
		require.False(t, ok)
		inst, ok := s.Pick(instances(1, 7))
		require.True(t, ok)
		require.Equal(t, "7", inst.ID)
	}
	var nilSticky *discovery.StickyStrategy
	_, ok := nilSticky.Pick(instances(1, 0))
	require.False(t, ok)
	require.Equal(t, -1, nilSticky.InstanceNumber())
}

// TestStrategiesConcurrent: strategies are safe for concurrent use (run
// with -race); round robin hands each instance out equally often.
func TestStrategiesConcurrent(t *testing.T) {
	l := instances(4, 0)
	rr := discovery.RoundRobin()
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				inst, _ := rr.Pick(l)
				mu.Lock()
				counts[inst.ID]++
				mu.Unlock()
				_, _ = discovery.Sticky(discovery.Random()).Pick(l)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, map[string]int{"0": 200, "1": 200, "2": 200, "3": 200}, counts)
}
