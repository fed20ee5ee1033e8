package cache

import (
	"github.com/go-zkrecipes/zkrecipes/internal/enum"
	"github.com/go-zookeeper/zk"
)

// Node is one cached node as last read.
type Node struct {
	// Path is the node's path, relative to the client's namespace.
	Path string
	// Data is the node's data (nil with WithoutData). It is shared with the
	// cache and with every event that carries it: do not modify it.
	Data []byte
	// Stat is the node's stat from the read that gave Data. Its child
	// counts (NumChildren, Cversion, Pzxid) are as of that read: a change of
	// children alone does not re-read a node.
	Stat zk.Stat
}

// EventType says what happened to a node.
type EventType int

const (
	// Created: the node is in the cache now (it was created, or seen for the
	// first time, as in the initial load).
	Created EventType = iota + 1
	// Changed: the node's data was written (its Mzxid moved), or it was
	// deleted and made again between two reads (its Czxid moved).
	Changed
	// Deleted: the node is gone from the cache (deleted on the server, or no
	// longer kept: its parent is gone).
	Deleted
	// Initialized: the first full load is done; it comes once, after the
	// Created events of every node found then.
	Initialized
)

// String names the type as Curator's CuratorCacheListener does.
func (t EventType) String() string {
	return enum.Name(t, Created, "EventType", "NODE_CREATED", "NODE_CHANGED", "NODE_DELETED", "INITIALIZED")
}

// Event is one change of the cache's view.
type Event struct {
	// Type is what happened.
	Type EventType
	// Node is the node after the change (Created, Changed) or as it was last
	// cached (Deleted); zero for Initialized.
	Node Node
	// Old is the node before a Changed event; zero otherwise.
	Old Node
}
