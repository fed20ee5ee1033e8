package queue

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Curator's item node names. Every item node is PERSISTENT_SEQUENTIAL under
// the queue's path, named by its kind's prefix, to which ZooKeeper appends
// its 10-digit sequence number:
//
//	DistributedQueue          queue-0000000042
//	DistributedPriorityQueue  queue-1000000070000000042   (priority 7: "1" and 8 hex digits; "0" for negative)
//	DistributedDelayQueue     queue-|19A4C2F1D80|0000000042 (due at that Unix time in ms, hex)
//	DistributedIdQueue        queue-|order-17|0000000042  (the id, with '/' and '|' made '_')
//	SimpleDistributedQueue    qn-0000000042
const (
	itemPrefix   = "queue-"
	simplePrefix = "qn-"
	separator    = '|'
	seqDigits    = 10
)

// kind is which of Curator's queues a handle is.
type kind int

const (
	kindPlain kind = iota
	kindID
	kindPriority
	kindDelay
	kindSimple
)

func (k kind) String() string {
	switch k {
	case kindID:
		return "id queue"
	case kindPriority:
		return "priority queue"
	case kindDelay:
		return "delay queue"
	case kindSimple:
		return "simple queue"
	}
	return "queue"
}

// prefix is the name every item node of kind k starts with.
func (k kind) prefix() string {
	if k == kindSimple {
		return simplePrefix
	}
	return itemPrefix
}

// priorityPrefix is Curator's name prefix of an item of priority p: "1"
// and p's 8 hex digits for p >= 0, "0" and those of p as unsigned for
// p < 0, so that names sort as priorities do.
func priorityPrefix(p int32) string {
	sign := "1"
	if p < 0 {
		sign = "0"
	}
	return fmt.Sprintf("%s%s%08X", itemPrefix, sign, uint32(p))
}

// delayPrefix is Curator's name prefix of an item due at ms (Unix time in
// milliseconds): the time in hex, at least 8 digits, between separators.
func delayPrefix(ms int64) string {
	return fmt.Sprintf("%s%c%08X%c", itemPrefix, separator, ms, separator)
}

// idPrefix is Curator's name prefix of an item with id id.
func idPrefix(id string) string {
	return itemPrefix + string(separator) + fixID(id) + string(separator)
}

// fixID is the id as a name holds it: '/' and '|' become '_' (Curator's
// fixId).
func fixID(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == separator {
			return '_'
		}
		return r
	}, id)
}

// parseID splits an id queue's node name into its id and the name without
// it (Curator's parseId: between the first two separators). ok is false for
// a name without two separators: its id is then the whole name.
func parseID(name string) (id, cleaned string, ok bool) {
	i := strings.IndexByte(name, separator)
	if i < 0 {
		return name, name, false
	}
	j := strings.IndexByte(name[i+1:], separator)
	if j < 0 {
		return name, name, false
	}
	j += i + 1
	return name[i+1 : j], name[:i] + name[j+1:], true
}

// parseDue is the due time (Unix ms) in a delay queue's node name, between
// its last two separators; 0 when there is none (Curator's getEpoch: such
// an item is due at once).
func parseDue(name string) int64 {
	j := strings.LastIndexByte(name, separator)
	if j <= 0 {
		return 0
	}
	i := strings.LastIndexByte(name[:j], separator)
	if i <= 0 || j <= i+1 {
		return 0
	}
	ms, err := strconv.ParseInt(name[i+1:j], 16, 64)
	if err != nil {
		return 0
	}
	return ms
}

// parsePriority is the priority in a priority queue's node name; ok is
// false for a name that holds none.
func parsePriority(name string) (int32, bool) {
	rest, found := strings.CutPrefix(name, itemPrefix)
	if !found || len(rest) < 9 || (rest[0] != '0' && rest[0] != '1') {
		return 0, false
	}
	u, err := strconv.ParseUint(rest[1:9], 16, 32)
	if err != nil {
		return 0, false
	}
	p := int32(uint32(u))
	if (rest[0] == '1') != (p >= 0) {
		return 0, false
	}
	return p, true
}

// sequence is the 10-digit sequence number ZooKeeper appended to name, and
// whether it has one.
func sequence(name string) (string, bool) {
	if len(name) < seqDigits {
		return "", false
	}
	s := name[len(name)-seqDigits:]
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	return s, true
}

// requeuePrefix is the prefix a requeued item's new node takes: its old
// name without the sequence number, so that an id, a priority or a due
// time is kept and the name never grows (Curator's CURATOR-56); the kind's
// plain prefix for a name without one.
func (k kind) requeuePrefix(name string) string {
	if _, ok := sequence(name); ok && strings.HasPrefix(name, k.prefix()) {
		return name[:len(name)-seqDigits]
	}
	return k.prefix()
}

// entry is one item node of a listing, with what its name says.
type entry struct {
	name string
	key  string // the sort key: the order consumers take items in
	due  int64  // delay queue: due time, Unix ms (0: due at once)
}

// entries filters a listing of the queue's children down to kind k's item
// nodes (Curator: names starting with its prefix; others are foreign and
// skipped) and sorts them in the order consumers take them: by name for the
// plain, priority and simple queues, by name without the id for an id
// queue (so by sequence), by due time then sequence for a delay queue.
func (k kind) entries(names []string) (items []entry, foreign []string) {
	items = make([]entry, 0, len(names))
	for _, n := range names {
		if !strings.HasPrefix(n, k.prefix()) {
			foreign = append(foreign, n)
			continue
		}
		e := entry{name: n, key: n}
		switch k {
		case kindID:
			_, e.key, _ = parseID(n)
		case kindDelay:
			e.due = parseDue(n)
			seq, _ := sequence(n)
			e.key = seq
		}
		items = append(items, e)
	}
	slices.SortFunc(items, func(a, b entry) int {
		if k == kindDelay {
			if c := cmp.Compare(a.due, b.due); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.name, b.name))
	})
	return items, foreign
}

// dueAt is the instant an entry's item may be taken (the zero time: now).
func (e entry) dueAt() time.Time {
	if e.due <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(e.due)
}
