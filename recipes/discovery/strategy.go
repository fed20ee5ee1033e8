package discovery

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// Strategy picks the instance a Provider hands out (Curator's
// ProviderStrategy). Pick gets the instances that passed the provider's
// filters, sorted by ID, and reports false when it picks none (always for
// an empty list). A Strategy is called from any goroutine: it must be safe
// for concurrent use. The strategies here keep state (a position, a chosen
// instance), so give each Provider its own.
type Strategy interface {
	// Pick returns the instance to hand out, or false for none.
	Pick(instances []Instance) (Instance, bool)
}

// StrategyFunc adapts a function to a Strategy.
type StrategyFunc func(instances []Instance) (Instance, bool)

// Pick calls f.
func (f StrategyFunc) Pick(instances []Instance) (Instance, bool) { return f(instances) }

// RoundRobin returns Curator's RoundRobinStrategy: each Pick takes the next
// instance in the list, wrapping around (the default strategy).
func RoundRobin() Strategy { return &roundRobin{} }

type roundRobin struct{ next atomic.Uint64 }

func (r *roundRobin) Pick(instances []Instance) (Instance, bool) {
	if len(instances) == 0 {
		return Instance{}, false
	}
	i := r.next.Add(1) - 1
	return instances[i%uint64(len(instances))], true
}

// Random returns Curator's RandomStrategy: each Pick takes an instance at
// random.
func Random() Strategy {
	return StrategyFunc(func(instances []Instance) (Instance, bool) {
		if len(instances) == 0 {
			return Instance{}, false
		}
		return instances[rand.IntN(len(instances))], true
	})
}

// Sticky returns Curator's StickyStrategy: master picks an instance, which
// every later Pick returns again for as long as it is in the list (equal
// field for field: an instance whose data changed counts as gone); then
// master picks anew. A nil master is RoundRobin.
func Sticky(master Strategy) *StickyStrategy {
	if master == nil {
		master = RoundRobin()
	}
	return &StickyStrategy{master: master, number: -1}
}

// StickyStrategy is the strategy Sticky returns.
type StickyStrategy struct {
	master Strategy

	mu     sync.Mutex
	ours   *Instance
	number int
}

// Pick returns the instance picked before while it is still in instances,
// or a new one from the master strategy.
func (s *StickyStrategy) Pick(instances []Instance) (Instance, bool) {
	if s == nil {
		return Instance{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.master == nil { // a zero StickyStrategy
		s.master, s.number = RoundRobin(), -1
	}
	if s.ours != nil && !contains(instances, *s.ours) {
		s.ours = nil
	}
	if s.ours == nil {
		inst, ok := s.master.Pick(instances)
		if !ok {
			return Instance{}, false
		}
		s.ours = &inst
		s.number++
	}
	return *s.ours, true
}

// InstanceNumber counts the instances picked so far, from 0 for the first
// (-1 before any): it changes whenever the sticky instance does, as
// Curator's getInstanceNumber.
func (s *StickyStrategy) InstanceNumber() int {
	if s == nil {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.master == nil {
		return -1
	}
	return s.number
}

func contains(instances []Instance, inst Instance) bool {
	for _, i := range instances {
		if i.Equal(inst) {
			return true
		}
	}
	return false
}
