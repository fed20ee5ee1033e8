package lockq

import (
	"errors"
)

var (
	// errForeignNode means the node a create returned belongs to another
	// session than the one it was created for: go-zookeeper replayed the
	// create into a newer session. The node is deleted and the contender
	// queues again.
	errForeignNode = errors.New("zkrecipes: lock node belongs to another session")
)
