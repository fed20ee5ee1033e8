package zkotel

import "sync"

// PathOther is the AttrPath value of every path past the first
// WithMaxPaths distinct ones in the metrics (no ZooKeeper path is spelt
// so: each starts with a slash).
const PathOther = "other"

// DefaultMaxPaths is the number of distinct paths WithPathAttribute puts
// in the metrics as themselves without WithMaxPaths.
const DefaultMaxPaths = 100

// pathSet hands out AttrPath values: the path itself for the first max
// distinct paths, PathOther for the rest, so that the series stay bounded
// whatever paths the application uses.
type pathSet struct {
	known sync.Map // path -> struct{}: the paths labelled as themselves
	mu    sync.Mutex
	n     int
	max   int
}

func (p *pathSet) label(path string) string {
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
