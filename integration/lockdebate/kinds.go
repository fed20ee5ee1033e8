package lockdebate

import "fmt"

// Kind names one of the locks the debate compares.
type Kind string

// The locks of the debate.
const (
	// KindRedis is the Redis lock as the seeds write it: SET key value NX PX
	// lease to take it, a Lua compare-and-delete to release it.
	KindRedis Kind = "redis"
	// KindMySQL is the seeds' MySQL lock: a row unique by the lock's name
	// with an expiry in the database's clock, released by delete.
	KindMySQL Kind = "mysql"
	// KindZK is zkrecipes' mutex used with care but without fencing: the
	// holder checks that Lost() has not closed before it writes.
	KindZK Kind = "zk"
	// KindZKFenced is zkrecipes' mutex whose fencing token (Token: the lock
	// node's czxid) travels with every write, and the resource refuses a
	// token lower than one it has seen.
	KindZKFenced Kind = "zk-fenced"
)

// Kinds are all the locks, in the order the table lists them.
var Kinds = []Kind{KindRedis, KindMySQL, KindZK, KindZKFenced}

// String describes the lock for the table.
func (k Kind) String() string {
	switch k {
	case KindRedis:
		return "Redis SET NX PX, Lua release"
	case KindMySQL:
		return "MySQL lock row (unique key, expiry)"
	case KindZK:
		return "zkrecipes mutex, Lost() checked"
	case KindZKFenced:
		return "zkrecipes mutex + fencing token"
	}
	return fmt.Sprintf("lock kind %q", string(k))
}

// valid reports whether k is one of Kinds.
func (k Kind) valid() bool {
	for _, x := range Kinds {
		if k == x {
			return true
		}
	}
	return false
}

// zooKeeper reports whether the lock lives in ZooKeeper.
func (k Kind) zooKeeper() bool { return k == KindZK || k == KindZKFenced }
