package queue

// Decision is a predicate's answer for one listing.
type Decision struct {
	// Holds reports that the contender holds now.
	Holds bool
	// Wait is the index of the ONE node to wait for when it does not hold.
	Wait int
	// GrantOnDelete reports that the deletion of that node alone makes the
	// contender hold, so no second listing is needed (fast handoff). A
	// predicate may say so only when nothing else can come between: sequence
	// numbers only grow, so no new contender can sort before the waiter,
	// except a downgrade node of the read/write lock, which takes the place of
	// a current write holder.
	GrantOnDelete bool
}

// Predicate decides from one sorted listing whether the node at index mine
// holds, and if not which single node it must wait for. nodes holds only
// contenders (see Sorted); mine is a valid index into it.
type Predicate func(nodes []Node, mine int) Decision

// Exclusive is the mutex's predicate, with room for n holders (Curator's
// maxLeases): the first n nodes hold; any other waits for the node just
// before it, and holds as soon as that node goes if it was the last holder
// in the way (index n).
func Exclusive(n int) Predicate {
	if n < 1 {
		n = 1
	}
	return func(nodes []Node, mine int) Decision {
		if mine < n {
			return Decision{Holds: true}
		}
		return Decision{Wait: mine - 1, GrantOnDelete: mine == n}
	}
}

// Always holds at once. The read/write lock's downgrade uses it: a handle
// that holds the write lock may take the read lock without waiting.
func Always(nodes []Node, mine int) Decision { return Decision{Holds: true} }

// Writer is the write side of a read/write lock: it holds when first of all
// nodes, readers and writers alike, and otherwise waits for the node just
// before it. The deletion of that node grants at once only when it was a
// reader: a writer in front may have downgraded, leaving a read node at its
// own position, which only a fresh listing shows.
func Writer(readMarker string) Predicate {
	return func(nodes []Node, mine int) Decision {
		if mine == 0 {
			return Decision{Holds: true}
		}
		return Decision{Wait: mine - 1, GrantOnDelete: mine == 1 && nodes[0].Marker == readMarker}
	}
}

// Reader is the read side of a read/write lock: it holds when no writer
// sorts before it, and otherwise waits for the LAST writer before it, so a
// reader queued behind several writers wakes once, when the last of them
// goes. When that writer was the only one in front, its deletion grants at
// once: writers only join at the back, and a downgrade node is a reader.
func Reader(writeMarker string) Predicate {
	return func(nodes []Node, mine int) Decision {
		last, writers := -1, 0
		for i := 0; i < mine; i++ {
			if nodes[i].Marker == writeMarker {
				last = i
				writers++
			}
		}
		if last < 0 {
			return Decision{Holds: true}
		}
		return Decision{Wait: last, GrantOnDelete: writers == 1}
	}
}
