package lockq

// Decision is a predicate's answer for one listing.
type Decision struct {
	// Holds reports that the contender holds now.
	Holds bool
	// Wait is the index of the ONE node to wait for when it does not hold.
	Wait int
	// RelistOnDelete asks for a fresh listing when that node is deleted.
	// Otherwise (fast handoff) the waiter drops it from the listing it has
	// and, if the predicate then grants, holds with no round trip: sequence
	// numbers only grow, so the nodes ahead of a waiter can only disappear,
	// and the old listing minus the deleted node is a safe superset of them.
	// The one exception is a write holder of the read/write lock, which may
	// have downgraded and left a read node at its place when it goes.
	RelistOnDelete bool
}

// Predicate decides from one sorted listing whether the node at index mine
// holds, and if not which single node it must wait for. nodes holds only
// contenders (see Sorted); mine is a valid index into it.
type Predicate func(nodes []Node, mine int) Decision

// Exclusive is the mutex's predicate: the first node holds; any other waits
// for the node just before it. (It is deliberately not generalised to n
// holders: a waiter watching only its predecessor would sleep through the
// departure of another holder. A semaphore needs Curator's different
// design, a lock plus a watch on the leases.)
func Exclusive(nodes []Node, mine int) Decision {
	if mine == 0 {
		return Decision{Holds: true}
	}
	return Decision{Wait: mine - 1}
}

// Always holds at once. The read/write lock's downgrade uses it: a handle
// that holds the write lock may take the read lock without waiting.
func Always(nodes []Node, mine int) Decision { return Decision{Holds: true} }

// Writer is the write side of a read/write lock: it holds when first of all
// nodes, readers and writers alike, and otherwise waits for the node just
// before it. When that node is a writer, its deletion calls for a fresh
// listing: it may have downgraded, leaving a read node at its own place.
func Writer(writeMarker string) Predicate {
	return func(nodes []Node, mine int) Decision {
		if mine == 0 {
			return Decision{Holds: true}
		}
		return Decision{Wait: mine - 1, RelistOnDelete: nodes[mine-1].Marker == writeMarker}
	}
}

// Reader is the read side of a read/write lock: it holds when no writer
// sorts before it, and otherwise waits for the LAST writer before it, so a
// reader queued behind several writers wakes once, when the last of them
// goes. The read node a downgrading writer leaves is no obstacle to a
// reader, so a deletion never needs a fresh listing here.
func Reader(writeMarker string) Predicate {
	return func(nodes []Node, mine int) Decision {
		last := -1
		for i := 0; i < mine; i++ {
			if nodes[i].Marker == writeMarker {
				last = i
			}
		}
		if last < 0 {
			return Decision{Holds: true}
		}
		return Decision{Wait: last}
	}
}
