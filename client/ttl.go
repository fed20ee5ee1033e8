package client

import (
	"time"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zookeeper/zk"
)

// MaxTTL is the longest time to live ZooKeeper accepts for a TTL node:
// 2^40-1 milliseconds, about 34 years.
const MaxTTL = (1<<40 - 1) * time.Millisecond

// absTTL is abs for a TTL node's path, that also refuses bad flags or ttl
// (see checkTTL).
func (c *Client) absTTL(path string, flags int32, ttl time.Duration) (string, error) {
	full, err := c.abs(path)
	if err != nil {
		return "", err
	}
	return full, checkTTL(flags, ttl)
}

// checkTTL refuses flags that are not a TTL mode and a ttl out of
// ZooKeeper's range.
func checkTTL(flags int32, ttl time.Duration) error {
	switch {
	case flags != zk.FlagTTL && flags != zk.FlagPersistentSequentialWithTTL:
		return errs.Invalid("TTL node flags %d: want zk.FlagTTL or zk.FlagPersistentSequentialWithTTL", flags)
	case ttl < time.Millisecond:
		return errs.Invalid("TTL %v: want at least 1ms", ttl)
	case ttl > MaxTTL:
		return errs.Invalid("TTL %v: longer than ZooKeeper's maximum %v", ttl, MaxTTL)
	}
	return nil
}
