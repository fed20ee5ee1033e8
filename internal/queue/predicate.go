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
