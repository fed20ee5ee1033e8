package zkotel

import "github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"

// PathOther, "other", is the AttrPath value of every path past the first
// WithMaxPaths distinct ones in the metrics (no ZooKeeper path is spelt
// so: each starts with a slash).
const PathOther = hookmetrics.PathOther

// DefaultMaxPaths, 100, is the number of distinct paths WithPathAttribute
// puts in the metrics as themselves without WithMaxPaths.
const DefaultMaxPaths = hookmetrics.DefaultMaxPaths
