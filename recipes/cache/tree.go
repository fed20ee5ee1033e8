package cache

import (
	"strings"

	"github.com/go-zookeeper/zk"
)

// entry is one node the cache knows of: a live node (in the view, announced
// by a Created event) or a placeholder the loop is about to read (a name
// just listed, or the root while it does not exist). The view fields (live,
// data, the stat) and the tree (kids, slot, the Cache's index) change only
// on the loop's goroutine with Cache.mu held for writing; readers hold it
// for reading. The rest is the loop's own.
//
// An entry is 128 bytes: the stat is zk.Stat's fields without its padding,
// the children a list only a parent has, the parent found through the
// index by the path, the depth counted from the path, the loop's flags one
// byte. A cached node costs that, its path, its data and its slots in the
// index and in its parent's list.
type entry struct {
	path string
	data []byte
	kids *kidList // nil while none is cached

	// The node's zk.Stat, as of the read that gave data.
	czxid, mzxid, ctime, mtime, owner, pzxid             int64
	version, cversion, aversion, dataLength, numChildren int32

	// kidsCv is the node's cversion as its latest listing saw it: the
	// persistent mode lists a node again when a read shows it moved.
	kidsCv int32
	slot   int32 // the entry's index in its parent's kids

	live bool
	gone bool     // detached from the tree: late replies about it are dropped
	jobs jobFlags // its reads and listings in flight, queued or asked for
}

// jobFlags are an entry's jobs: for each kind, one in flight or queued
// (busy) and another asked for after it (again).
type jobFlags uint8

const (
	dataBusy jobFlags = 1 << iota
	dataAgain
	kidsBusy
	kidsAgain
	seen // applyKids: the latest listing names it
)

// busyFlags are the flags of kind's job in flight or queued, and of the
// one asked for after it.
func busyFlags(kind jobKind) (busy, again jobFlags) {
	if kind == listKids {
		return kidsBusy, kidsAgain
	}
	return dataBusy, dataAgain
}

func (e *entry) has(f jobFlags) bool { return e.jobs&f != 0 }

// kidList is a parent's cached children, in no order; each kid's slot is
// its index here.
type kidList struct{ list []*entry }

// addKid appends k to e's children.
func (e *entry) addKid(k *entry, hint int) {
	if e.kids == nil {
		e.kids = &kidList{list: make([]*entry, 0, max(hint, 1))}
	}
	k.slot = int32(len(e.kids.list))
	e.kids.list = append(e.kids.list, k)
}

// removeKid takes k out of e's children (the last one moves to its slot).
func (e *entry) removeKid(k *entry) {
	if e.kids == nil {
		return
	}
	list := e.kids.list
	i := int(k.slot)
	if i >= len(list) || list[i] != k {
		return
	}
	last := list[len(list)-1]
	list[i], last.slot = last, int32(i)
	list[len(list)-1] = nil
	e.kids.list = list[:len(list)-1]
	if len(e.kids.list) == 0 {
		e.kids = nil
	}
}

// children returns e's cached children (the list itself: do not keep it
// past the lock).
func (e *entry) children() []*entry {
	if e.kids == nil {
		return nil
	}
	return e.kids.list
}

// stat is the entry's zk.Stat.
func (e *entry) stat() zk.Stat {
	return zk.Stat{
		Czxid: e.czxid, Mzxid: e.mzxid, Ctime: e.ctime, Mtime: e.mtime,
		Version: e.version, Cversion: e.cversion, Aversion: e.aversion,
		EphemeralOwner: e.owner, DataLength: e.dataLength, NumChildren: e.numChildren,
		Pzxid: e.pzxid,
	}
}

// setStat sets the entry's stat to st.
func (e *entry) setStat(st *zk.Stat) {
	e.czxid, e.mzxid, e.ctime, e.mtime = st.Czxid, st.Mzxid, st.Ctime, st.Mtime
	e.version, e.cversion, e.aversion = st.Version, st.Cversion, st.Aversion
	e.owner, e.dataLength, e.numChildren, e.pzxid = st.EphemeralOwner, st.DataLength, st.NumChildren, st.Pzxid
}

// node is the entry's view as a Node.
func (e *entry) node() Node { return Node{Path: e.path, Data: e.data, Stat: e.stat()} }

// childPath joins a parent path and a child's name.
func childPath(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}

// appendChildPath appends childPath(parent, name) to b.
func appendChildPath(b []byte, parent, name string) []byte {
	b = append(b, parent...)
	if parent != "/" {
		b = append(b, '/')
	}
	return append(b, name...)
}

// depthBelow is how many levels path lies below root (0 for root itself).
func depthBelow(root, path string) int {
	switch {
	case path == root:
		return 0
	case root == "/":
		return strings.Count(path, "/")
	}
	return strings.Count(path[len(root):], "/")
}

// walk calls f for e and every entry below it, children before parents.
func (e *entry) walk(f func(*entry)) {
	for _, k := range e.children() {
		k.walk(f)
	}
	f(e)
}
