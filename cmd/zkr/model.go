package main

import (
	"encoding/binary"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
)

// The markers of the recipes' nodes, as Curator names them.
const (
	markLock  = "lock-"
	markLatch = "latch-"
	markRead  = "__READ__"
	markWrite = "__WRIT__"
	markLease = "lease-"
)

// The kinds of recipe zkr recognises.
const (
	kindMutex     = "mutex" // a mutex, a LeaderSelector (election.Run), a semaphore's locks/
	kindRWLock    = "rwlock"
	kindSemaphore = "semaphore"
	kindLatch     = "latch"
	kindCount     = "count"
	kindNone      = "none" // no recipe recognised (no contender, not a count)
)

// The roles of a node in a view.
const (
	roleHolder      = "holder"
	roleWaiter      = "waiter"
	roleReader      = "reader" // holds the read lock
	roleWriter      = "writer" // holds the write lock
	roleLease       = "lease"
	roleLeader      = "leader"
	roleParticipant = "participant"
)

// rawNode is one child as read from the server: the input of the pure
// view-building logic.
type rawNode struct {
	Name           string
	Data           []byte
	Czxid          int64
	Ctime          int64 // ms since the epoch
	EphemeralOwner int64
}

// NodeView is one contender in a view. Its JSON field names are stable.
type NodeView struct {
	// Name is the node's name (no directory).
	Name string `json:"name"`
	// Role: holder, waiter, reader, writer, lease, leader or participant.
	Role string `json:"role"`
	// Mode is "read" or "write" for a read/write lock's nodes, else empty.
	Mode string `json:"mode,omitempty"`
	// Session is the owner session id in hex (0x...), from ephemeralOwner.
	Session string `json:"session"`
	// Created is the node's ctime, RFC 3339; AgeSeconds is now minus ctime.
	Created    time.Time `json:"created"`
	AgeSeconds float64   `json:"age_seconds"`
	// Data is the node's data as text (host or participant id), or hex
	// ("0x...") when it is not printable text.
	Data string `json:"data"`
	// Token is the fencing token: the node's czxid.
	Token int64 `json:"token"`
	// Watches is the name of the node this waiter waits for, if any.
	Watches string `json:"watches,omitempty"`
}

// CountView is a shared count's value.
type CountView struct {
	Value   int32 `json:"value"`
	Version int32 `json:"version"`
}

// View is what zkr show prints about one path. Its JSON field names are
// stable.
type View struct {
	// Path is the path shown (relative to the namespace).
	Path string `json:"path"`
	// Kind: mutex, rwlock, semaphore, latch, count or none.
	Kind string `json:"kind"`
	// Nodes are the contenders in queue order (a semaphore's leases).
	Nodes []NodeView `json:"nodes"`
	// Acquirers are a semaphore's acquirers queued in its locks/ mutex.
	Acquirers []NodeView `json:"acquirers,omitempty"`
	// Limit is the limit written on a semaphore's node (WithLimitCheck).
	Limit *int `json:"limit,omitempty"`
	// Count is set for a shared count.
	Count *CountView `json:"count,omitempty"`
	// Foreign lists children that carry no recipe marker (no contenders).
	Foreign []string `json:"foreign,omitempty"`
	// Children counts the children of a node of kind none.
	Children int `json:"children,omitempty"`
}

// decodeData renders node data: printable UTF-8 as is, else hex.
func decodeData(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if utf8.Valid(b) {
		printable := true
		for _, r := range string(b) {
			if r < 0x20 || r == 0x7f {
				printable = false
				break
			}
		}
		if printable {
			return string(b)
		}
	}
	return fmt.Sprintf("0x%x", b)
}

// sessionHex renders a session id as zkCli does.
func sessionHex(owner int64) string { return fmt.Sprintf("0x%x", uint64(owner)) }

// markersOf reports which recipe markers the children carry.
func markersOf(names []string) map[string]bool {
	found := map[string]bool{}
	for _, n := range names {
		_, m := lockq.SortKey(n, []string{markRead, markWrite, markLatch, markLease, markLock})
		if m != "" {
			found[m] = true
		}
	}
	return found
}

// classify names the recipe whose directory has these children (dataLen is
// the directory node's data length, for a count).
func classify(children []string, dataLen int) string {
	has := map[string]bool{}
	for _, c := range children {
		has[c] = true
	}
	if has["leases"] && has["locks"] || has["leases"] && len(children) == 1 {
		return kindSemaphore
	}
	m := markersOf(children)
	switch {
	case m[markRead] || m[markWrite]:
		return kindRWLock
	case m[markLatch]:
		return kindLatch
	case m[markLock]:
		return kindMutex
	case len(children) == 0 && dataLen == 4:
		return kindCount
	}
	return kindNone
}

// markersFor is the sort markers of a kind.
func markersFor(kind string) []string {
	switch kind {
	case kindRWLock:
		return []string{markRead, markWrite}
	case kindLatch:
		return []string{markLatch}
	case kindSemaphore:
		return []string{markLease}
	}
	return []string{markLock}
}

// buildQueue orders the contenders among raw and gives each its role and
// the node it waits for, by the recipe's rules. Foreign children are
// returned apart. now is for the ages.
func buildQueue(kind string, raw []rawNode, now time.Time) (nodes []NodeView, foreign []string) {
	byName := map[string]rawNode{}
	names := make([]string, 0, len(raw))
	for _, r := range raw {
		byName[r.Name] = r
		names = append(names, r.Name)
	}
	markers := markersFor(kind)
	sorted := lockq.Sorted(names, markers)
	inQueue := map[string]bool{}
	for _, s := range sorted {
		inQueue[s.Name] = true
	}
	for _, n := range names {
		if !inQueue[n] {
			foreign = append(foreign, n)
		}
	}
	sort.Strings(foreign)
	for i, s := range sorted {
		r := byName[s.Name]
		v := NodeView{
			Name:    s.Name,
			Session: sessionHex(r.EphemeralOwner),
			Data:    decodeData(r.Data),
			Token:   r.Czxid,
		}
		if r.Ctime > 0 {
			v.Created = time.UnixMilli(r.Ctime).UTC()
			v.AgeSeconds = roundSeconds(now.Sub(v.Created))
		}
		switch kind {
		case kindRWLock:
			if s.Marker == markWrite {
				v.Mode = "write"
				// A writer holds when first; the read node of its own
				// downgrade (same key) may sort before it for a moment.
				first := true
				for j := 0; j < i; j++ {
					if sorted[j].Key != s.Key {
						first = false
					}
				}
				if first {
					v.Role = roleWriter
				} else {
					v.Role, v.Watches = roleWaiter, sorted[i-1].Name
				}
			} else {
				v.Mode = "read"
				// A reader waits for the last writer with a smaller key; a
				// downgraded read node shares its writer's key and holds.
				w := i - 1
				for w >= 0 && (sorted[w].Marker != markWrite || sorted[w].Key >= s.Key) {
					w--
				}
				if w < 0 {
					v.Role = roleReader
				} else {
					v.Role, v.Watches = roleWaiter, sorted[w].Name
				}
			}
		case kindLatch:
			if i == 0 {
				v.Role = roleLeader
			} else {
				v.Role, v.Watches = roleParticipant, sorted[i-1].Name
			}
		case kindSemaphore:
			v.Role = roleLease
		default:
			if i == 0 {
				v.Role = roleHolder
			} else {
				v.Role, v.Watches = roleWaiter, sorted[i-1].Name
			}
		}
		nodes = append(nodes, v)
	}
	return nodes, foreign
}

// markSemaphoreWaiters marks the leases beyond the limit (all children of
// leases/ count, as in Curator): those acquirers still wait for room.
func markSemaphoreWaiters(nodes []NodeView, limit *int) {
	if limit == nil {
		return
	}
	for i := range nodes {
		if i >= *limit {
			nodes[i].Role = roleWaiter
		}
	}
}

// parseLimit reads a limit written as decimal text (WithLimitCheck).
func parseLimit(data []byte) *int {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return nil
	}
	return &n
}

// parseCount decodes a shared count: a 4-byte big-endian int32.
func parseCount(data []byte) (int32, bool) {
	if len(data) != 4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(data)), true
}

// encodeCount encodes a shared count.
func encodeCount(v int32) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, uint32(v))
	return b
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Milliseconds()) / 1000
}

// join joins a directory and a child name.
func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return path.Join(dir, name)
}
