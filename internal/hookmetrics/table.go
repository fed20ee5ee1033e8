package hookmetrics

import "sync"

// Table holds a backend's values (a metric's series with their label
// values, an attribute set) of each name (a recipe, a cache event type)
// and, when the metrics are by path, each path label: each made the first
// time its name and path report, then read from a sync.Map, so that a
// hook finds it without a lock or an allocation. It is safe for
// concurrent use.
type Table[V any] struct {
	paths    *Paths // nil: not by path
	newValue func(name, path string) V
	made     sync.Map // tableKey -> V
}

// tableKey names a value: its name and its path label ("" when not by
// path).
type tableKey struct {
	name string
	path string
}

// NewTable returns the Table that makes the value of a name and a path
// label with newValue. paths labels the paths; nil, the metrics are not by
// path, and newValue is given "" for the path. When paths is nil the
// values of the names ahead are made now, so that their series are
// there, at zero, from the start (by path, no path is known yet).
func NewTable[V any](paths *Paths, newValue func(name, path string) V, ahead ...string) *Table[V] {
	t := &Table[V]{paths: paths, newValue: newValue}
	if paths == nil {
		for _, name := range ahead {
			t.Get(name, "")
		}
	}
	return t
}

// Get returns the value of name at path (the path is labelled by the
// Table's Paths, and ignored when not by path), making it the first time.
func (t *Table[V]) Get(name, path string) V {
	k := tableKey{name: name}
	if t.paths != nil {
		k.path = t.paths.Label(path)
	}
	if v, ok := t.made.Load(k); ok {
		return v.(V)
	}
	v, _ := t.made.LoadOrStore(k, t.newValue(k.name, k.path))
	return v.(V)
}

// Range calls f with each value made so far, in no order, until f
// returns false.
func (t *Table[V]) Range(f func(V) bool) {
	t.made.Range(func(_, v any) bool { return f(v.(V)) })
}
