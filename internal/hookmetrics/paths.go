package hookmetrics

import "sync"

// PathOther is the path label value of every path past the first
// MaxPaths distinct ones (no ZooKeeper path is spelt so: each starts with
// a slash).
const PathOther = "other"

// DefaultMaxPaths is how many distinct paths are labelled as themselves
// when the adapter's options do not say.
const DefaultMaxPaths = 100

// Paths hands out path label values: the path itself for the first max
// distinct paths, PathOther for the rest, so that the series stay bounded
// whatever paths the application uses. It is safe for concurrent use.
type Paths struct {
	known sync.Map // path -> struct{}: the paths labelled as themselves
	mu    sync.Mutex
	n     int
	max   int
}

// NewPaths returns the Paths that label the first max distinct paths as
// themselves.
func NewPaths(max int) *Paths { return &Paths{max: max} }

// Label returns path's label value: path itself if it is one of the first
// max distinct paths asked for, PathOther otherwise. A path once labelled
// as itself stays so.
func (p *Paths) Label(path string) string {
	if _, ok := p.known.Load(path); ok {
		return path
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.known.Load(path); ok {
		return path
	}
	if p.n >= p.max {
		return PathOther
	}
	p.known.Store(path, struct{}{})
	p.n++
	return path
}
