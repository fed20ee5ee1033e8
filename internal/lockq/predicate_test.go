package lockq

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// lockNodes returns n sorted mutex contenders.
func lockNodes(n int) []Node {
	kids := make([]string, n)
	for i := range kids {
		kids[i] = "_c_x-lock-" + pad10(i)
	}
	return Sorted(kids, []string{"lock-"})
}

// TestExclusive is the mutex's predicate: the first node holds; every other
// waits for the node just before it.
func TestExclusive(t *testing.T) {
	p := Exclusive
	nodes := lockNodes(5)
	assert.Equal(t, Decision{Holds: true}, p(nodes, 0))
	for mine := 1; mine < len(nodes); mine++ {
		assert.Equal(t, Decision{Wait: mine - 1}, p(nodes, mine), "mine=%d", mine)
	}
	assert.Equal(t, Decision{Holds: true}, p(lockNodes(1), 0), "a lone contender")
}

// TestExclusiveWaitsForOneNode checks the herd-free property over a whole
// queue: every waiter waits for a distinct node, the one just before it.
func TestExclusiveWaitsForOneNode(t *testing.T) {
	for _, n := range []int{1} {
		p := Exclusive
		nodes := lockNodes(20)
		watched := map[int]int{}
		for mine := range nodes {
			d := p(nodes, mine)
			if d.Holds {
				assert.Less(t, mine, n)
				continue
			}
			assert.Less(t, d.Wait, mine, "a waiter must wait for an earlier node")
			assert.GreaterOrEqual(t, d.Wait, 0)
			watched[d.Wait]++
		}
		for node, k := range watched {
			assert.Equal(t, 1, k, "n=%d: node %d is watched by %d waiters", n, node, k)
		}
		assert.Len(t, watched, len(nodes)-n)
	}
}

func rwNodes(kinds string) []Node {
	kids := make([]string, len(kinds))
	for i, k := range kinds {
		m := "__READ__"
		if k == 'W' {
			m = "__WRIT__"
		}
		kids[i] = "_c_x-" + m + pad10(i)
	}
	return Sorted(kids, []string{"__READ__", "__WRIT__"})
}

// TestWriterPredicate: first of all holds; else wait for the node just
// before, and list afresh after its deletion only when it was a writer
// (which may have left a downgrade read node at its place).
func TestWriterPredicate(t *testing.T) {
	p := Writer("__WRIT__")
	nodes := rwNodes("WRWWR")
	assert.Equal(t, Decision{Holds: true}, p(nodes, 0))
	assert.Equal(t, Decision{Wait: 0, RelistOnDelete: true}, p(nodes, 1), "behind a writer")
	assert.Equal(t, Decision{Wait: 1}, p(nodes, 2), "behind a reader")
	assert.Equal(t, Decision{Wait: 2, RelistOnDelete: true}, p(nodes, 3))
}

// TestReaderPredicate: holds with no writer ahead; else waits for the LAST
// writer ahead, never needing a fresh listing.
func TestReaderPredicate(t *testing.T) {
	p := Reader("__WRIT__")
	nodes := rwNodes("RRWRWWR")
	assert.Equal(t, Decision{Holds: true}, p(nodes, 0))
	assert.Equal(t, Decision{Holds: true}, p(nodes, 1))
	assert.Equal(t, Decision{Wait: 2}, p(nodes, 3))
	assert.Equal(t, Decision{Wait: 5}, p(nodes, 6), "the last writer ahead")
}

// TestFastHandoffMatchesFreshListing checks the rule the waiter's loop
// relies on: for the mutex and reader predicates, dropping deleted nodes
// from an old listing and deciding again gives the decision a fresh listing
// would, whatever subset of the nodes ahead has gone.
func TestFastHandoffMatchesFreshListing(t *testing.T) {
	cases := []struct {
		name  string
		p     Predicate
		nodes []Node
	}{
		{"mutex", Exclusive, lockNodes(6)},
		{"reader", Reader("__WRIT__"), rwNodes("WRWWRR")},
	}
	for _, tc := range cases {
		mine := len(tc.nodes) - 1
		for mask := 0; mask < 1<<mine; mask++ { // every subset of the nodes ahead that is gone
			var fresh []Node
			for i, n := range tc.nodes {
				if i == mine || mask&(1<<i) == 0 {
					fresh = append(fresh, n)
				}
			}
			want := tc.p(fresh, len(fresh)-1).Holds
			// Simulate the waiter: watch, find the watched node deleted, drop it, decide again.
			cur := append([]Node(nil), tc.nodes...)
			for {
				me := IndexOf(cur, tc.nodes[mine].Name)
				d := tc.p(cur, me)
				if d.Holds {
					break
				}
				if idx := IndexOf(fresh, cur[d.Wait].Name); idx >= 0 {
					break // the watched node still exists: the waiter would sleep here
				}
				cur = append(cur[:d.Wait:d.Wait], cur[d.Wait+1:]...)
			}
			me := IndexOf(cur, tc.nodes[mine].Name)
			assert.Equal(t, want, tc.p(cur, me).Holds, "%s mask=%b", tc.name, mask)
		}
	}
}
