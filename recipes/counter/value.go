package counter

import (
	"encoding/binary"
	"time"
)

// Result is what a call did, as Curator's AtomicValue and AtomicStats
// report it.
type Result struct {
	// Succeeded is true when the call did what it asked: the value was read
	// (Get) or written (every other call). A CompareAndSet whose expected
	// value was not there returns false with a nil error; every other call
	// returns false only with an error.
	Succeeded bool
	// PreValue is the counter's value before the call: the value the write
	// replaced, or the last value read when nothing was written (0 when the
	// node is missing, and when a TrySet wrote over data that was no
	// counter).
	PreValue int64
	// PostValue is the value after the call: the value written, or PreValue
	// when nothing was.
	PostValue int64
	// Version is the node's data version after the call: the version the
	// write made (ZooKeeper adds one at every write, so each version is made
	// by exactly one write), or the version last read; -1 when the node does
	// not exist.
	Version int32
	// Stats counts the tries.
	Stats Stats
}

// Stats are Curator's AtomicStats: how many conditional writes an update
// sent, optimistically and under the promoted lock, and how long each phase
// took (the promoted one from the start of the wait for the lock).
type Stats struct {
	// OptimisticTries is the writes sent before any lock was taken
	// (Curator's optimisticTries).
	OptimisticTries int
	// PromotedTries is the writes sent while holding the promoted lock
	// (Curator's promotedLockTries).
	PromotedTries int
	// OptimisticTime is how long the optimistic tries took.
	OptimisticTime time.Duration
	// PromotedTime is how long the promoted phase took, its wait for the
	// lock included; 0 when there was none.
	PromotedTime time.Duration
}

// encode is Curator's DistributedAtomicLong encoding: 8 bytes, big-endian
// two's complement.
func encode(n int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(n))
}

// decode reads a counter. Empty data is 0, as in Curator; anything but 0 or
// 8 bytes is not a counter (Curator refuses shorter data and reads the first
// 8 bytes of longer data: this package refuses both).
func decode(data []byte) (int64, bool) {
	switch len(data) {
	case 0:
		return 0, true
	case 8:
		return int64(binary.BigEndian.Uint64(data)), true
	}
	return 0, false
}
