package cache

import (
	"strings"

	"github.com/go-zookeeper/zk"
)

// entry is one node the cache knows of: a live node (in the view, announced
// by a Created event) or a placeholder the loop is about to read (a name
// just listed, or the root while it does not exist). The view fields (live,
// data, stat) and the tree (kids, the Cache's index) change only on the
// loop's goroutine with Cache.mu held for writing; readers hold it for
// reading. The rest is the loop's own.
type entry struct {
	path  string
	depth int32 // 0 for the root
	// kidsCv is the node's cversion as its latest listing saw it: the
	// persistent mode lists a node again when a read shows it moved.
	kidsCv int32
	parent *entry
	kids   map[string]*entry // by name (a substring of the kid's path); nil while empty

	data []byte
	stat zk.Stat

	// The flags sit together after the rest (entry is 144 bytes, not 152,
	// which the allocator rounds up to 160).
	live      bool
	gone      bool // detached from the tree: late replies about it are dropped
	dataBusy  bool // a read of the node is in flight or queued
	dataAgain bool // ... and another must follow it
	kidsBusy  bool // a listing of its children is in flight or queued
	kidsAgain bool
}

// name is the last segment of the entry's path.
func (e *entry) name() string { return e.path[strings.LastIndexByte(e.path, '/')+1:] }

// node is the entry's view as a Node.
func (e *entry) node() Node { return Node{Path: e.path, Data: e.data, Stat: e.stat} }

// childPath joins a parent path and a child's name.
func childPath(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}

// walk calls f for e and every entry below it, children before parents.
func (e *entry) walk(f func(*entry)) {
	for _, k := range e.kids {
		k.walk(f)
	}
	f(e)
}
