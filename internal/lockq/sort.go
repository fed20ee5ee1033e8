package lockq

import (
	"sort"
	"strings"
)

// Node is one child of a queue directory, as the predicate sees it.
type Node struct {
	// Name is the child's name (no directory).
	Name string
	// Marker is the lock name the child carries ("lock-", "__READ__", ...),
	// or "" for a foreign child that is no contender.
	Marker string
	// Key is what nodes are ordered by: the text after the marker's last
	// occurrence, which is ZooKeeper's sequence number (Curator's rule).
	Key string
}

// SortKey returns a child's sort key and marker under Curator's rule: the text
// after the last occurrence of a marker; a child with none sorts by its whole
// name and has marker "". Where several markers share a directory (the
// read/write lock) each name carries one; the first found is used.
func SortKey(name string, markers []string) (key, marker string) {
	for _, m := range markers {
		if m == "" {
			continue
		}
		if i := strings.LastIndex(name, m); i >= 0 {
			return name[i+len(m):], m
		}
	}
	return name, ""
}

// Sorted orders the contenders among children (foreign children are dropped:
// they are not in the queue and must never block it) by key, ties by name.
func Sorted(children []string, markers []string) []Node {
	nodes := make([]Node, 0, len(children))
	for _, c := range children {
		key, marker := SortKey(c, markers)
		if marker == "" {
			continue
		}
		nodes = append(nodes, Node{Name: c, Marker: marker, Key: key})
	}
	sort.Slice(nodes, func(i, j int) bool {
		if nodes[i].Key != nodes[j].Key {
			return nodes[i].Key < nodes[j].Key
		}
		return nodes[i].Name < nodes[j].Name
	})
	return nodes
}

// IndexOf returns the position of name in nodes, or -1.
func IndexOf(nodes []Node, name string) int {
	for i, n := range nodes {
		if n.Name == name {
			return i
		}
	}
	return -1
}
