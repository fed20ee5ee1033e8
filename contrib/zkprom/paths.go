package zkprom

import "github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"

// PathOther, "other", is the path label of every path past the first
// WithMaxPaths distinct ones (no ZooKeeper path is spelt so: each starts
// with a slash).
const PathOther = hookmetrics.PathOther

// DefaultMaxPaths, 100, is the number of distinct paths WithPathLabel
// labels without WithMaxPaths.
const DefaultMaxPaths = hookmetrics.DefaultMaxPaths
