package chaos

import (
	"sort"
	"strconv"
	"sync"
	"time"
)

// Holding is one acquire of one participant: Lock's invoke and return and,
// when it succeeded, how the holding ended.
type Holding struct {
	Who    int
	Kind   string // what is held: "" for the one kind of a recipe, or "read", "write", "lease", "term"
	Weight int    // units of the recipe's capacity it takes (0 counts as 1; see Capacity)
	Invoke time.Time
	Return time.Time // zero: Lock never returned (outcome unknown)
	OK     bool      // Lock returned nil
	Token  int64
	// Session is the holder's session when it was granted (0: unknown).
	Session int64
	Lost    time.Time // when Lost() closed (zero if not seen)
	Unlock  time.Time // when Unlock was invoked (zero if never)
}

// Open reports whether the acquire's outcome is unknown.
func (h Holding) Open() bool { return h.Return.IsZero() }

// End is when the holder stopped believing it held: the earlier of Unlock's
// invoke and Lost() closing; zero if neither happened.
func (h Holding) End() time.Time {
	switch {
	case h.Lost.IsZero():
		return h.Unlock
	case h.Unlock.IsZero() || h.Lost.Before(h.Unlock):
		return h.Lost
	default:
		return h.Unlock
	}
}

// ByFault reports whether the holding was ended by its loss signal rather
// than by its holder's Unlock.
func (h Holding) ByFault() bool {
	return !h.Lost.IsZero() && (h.Unlock.IsZero() || h.Lost.Before(h.Unlock))
}

// LimitChange is a change of a recipe's limit (a semaphore's shared
// count): the value set, and the set call's invoke and return. A set whose
// outcome is unknown (it failed) has OK false.
type LimitChange struct {
	Invoke, Return time.Time
	Value          int
	OK             bool
}

// History records every acquire and release of a run. Its methods are safe
// for concurrent use.
type History struct {
	mu      sync.Mutex
	hold    []*Holding
	limits  []LimitChange
	ended   map[int64]time.Time   // sessions the participants' clients lost
	resumed map[int64][]time.Time // when each session's connection came back (Reconnected)
	failed  []string              // what workers found wrong (Problem)
	tl      *Timeline
	name    func(int) string
}

// NewHistory returns an empty history that also notes its operations on tl.
func NewHistory(tl *Timeline) *History {
	return &History{tl: tl, name: PartName}
}

// Op is one acquire in progress; its methods record what happens to it.
type Op struct {
	h *History
	r *Holding
}

// Invoke records that participant who called Lock now.
func (h *History) Invoke(who int) *Op { return h.InvokeAs(who, "", 1) }

// InvokeAs records that participant who began to acquire now a holding of
// kind taking weight units of the recipe's capacity.
func (h *History) InvokeAs(who int, kind string, weight int) *Op {
	r := &Holding{Who: who, Kind: kind, Weight: weight, Invoke: time.Now()}
	h.mu.Lock()
	h.hold = append(h.hold, r)
	h.mu.Unlock()
	what := "Lock invoked"
	if kind != "" {
		what = "acquire " + kind + " invoked"
	}
	h.tl.AddAt(r.Invoke, h.name(who), what)
	return &Op{h: h, r: r}
}

// Also records a second holding granted by the same call as o (one of
// AcquireN's leases): it shares o's invoke and return.
func (o *Op) Also(token int64) *Op {
	o.h.mu.Lock() // o's own loss watch may be writing o.r.Lost meanwhile
	r := *o.r
	r.Token, r.Lost, r.Unlock = token, time.Time{}, time.Time{}
	o.h.hold = append(o.h.hold, &r)
	o.h.mu.Unlock()
	o.h.tl.AddAt(r.Return, o.h.name(r.Who), "GRANTED "+o.kind()+"token "+itoa(token))
	return &Op{h: o.h, r: &r}
}

// kind is o's kind followed by a space, or "".
func (o *Op) kind() string {
	if o.r.Kind == "" {
		return ""
	}
	return o.r.Kind + " "
}

// W returns the units of capacity the holding takes (Weight, at least 1).
func (h Holding) W() int { return max(h.Weight, 1) }

// Failed records that the acquire returned err: not held.
func (o *Op) Failed(err error) {
	at := time.Now()
	o.h.mu.Lock()
	o.r.Return = at
	o.h.mu.Unlock()
	o.h.tl.AddAt(at, o.h.name(o.r.Who), o.kind()+"acquire failed: "+err.Error())
}

// Granted records that Lock returned nil at instant at, with the holding's
// token.
func (o *Op) Granted(at time.Time, token int64) {
	o.h.mu.Lock()
	o.r.Return, o.r.OK, o.r.Token = at, true, token
	o.h.mu.Unlock()
	o.h.tl.AddAt(at, o.h.name(o.r.Who), "GRANTED "+o.kind()+"token "+itoa(token))
}

// LostAt records that the holding's Lost() closed at instant at.
func (o *Op) LostAt(at time.Time) {
	o.h.mu.Lock()
	first := o.r.Lost.IsZero()
	if first {
		o.r.Lost = at
	}
	o.h.mu.Unlock()
	if first {
		o.h.tl.AddAt(at, o.h.name(o.r.Who), o.kind()+"Lost() closed")
	}
}

// Unlocking records that the holder invokes Unlock now.
func (o *Op) Unlocking() {
	at := time.Now()
	o.h.mu.Lock()
	o.r.Unlock = at
	o.h.mu.Unlock()
	o.h.tl.AddAt(at, o.h.name(o.r.Who), o.kind()+"release invoked")
}

// InSession records the session the holding was granted in.
func (o *Op) InSession(id int64) {
	o.h.mu.Lock()
	o.r.Session = id
	o.h.mu.Unlock()
}

// SessionLost records that a participant's client lost session id at at.
func (h *History) SessionLost(id int64, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended == nil {
		h.ended = make(map[int64]time.Time)
	}
	h.ended[id] = at
}

// SessionReconnected records that a participant's client got its
// connection back, in the same session id, at at.
func (h *History) SessionReconnected(id int64, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.resumed == nil {
		h.resumed = make(map[int64][]time.Time)
	}
	h.resumed[id] = append(h.resumed[id], at)
}

// Sessions returns, for each session, when it was lost (if it was) and
// when its connection came back.
func (h *History) Sessions() (lost map[int64]time.Time, resumed map[int64][]time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lost = make(map[int64]time.Time, len(h.ended))
	for id, at := range h.ended {
		lost[id] = at
	}
	resumed = make(map[int64][]time.Time, len(h.resumed))
	for id, ats := range h.resumed {
		resumed[id] = append([]time.Time(nil), ats...)
	}
	return lost, resumed
}

// Problem records that participant who found something wrong that the
// capacity checks cannot see (a cache that does not match the server).
func (h *History) Problem(who int, what string) {
	h.mu.Lock()
	h.failed = append(h.failed, h.name(who)+": "+what)
	h.mu.Unlock()
	h.tl.Add(h.name(who), "PROBLEM: "+what)
}

// Problems returns what Problem recorded, in order.
func (h *History) Problems() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.failed...)
}

// LimitSet records a call that set the recipe's limit to value over
// [invoke, ret]; ok reports whether it succeeded.
func (h *History) LimitSet(invoke, ret time.Time, value int, ok bool) {
	h.mu.Lock()
	h.limits = append(h.limits, LimitChange{invoke, ret, value, ok})
	h.mu.Unlock()
}

// Limits returns the limit changes recorded, in invoke order.
func (h *History) Limits() []LimitChange {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]LimitChange(nil), h.limits...)
}

// AllGrantedSince reports whether each of participants 0 to n-1 was
// granted at or after t.
func (h *History) AllGrantedSince(t time.Time, n int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := make([]bool, n)
	left := n
	for _, r := range h.hold {
		if r.OK && !r.Return.Before(t) && r.Who < n && !seen[r.Who] {
			seen[r.Who] = true
			left--
		}
	}
	return left == 0
}

// Holder returns the name of a participant that holds now (granted, not
// ended), or "" when none does.
func (h *History) Holder() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.hold) - 1; i >= 0; i-- {
		if r := h.hold[i]; r.OK && r.End().IsZero() {
			return h.name(r.Who)
		}
	}
	return ""
}

// Holdings returns a copy of every acquire recorded, in invoke order.
func (h *History) Holdings() []Holding {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Holding, len(h.hold))
	for i, r := range h.hold {
		out[i] = *r
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Invoke.Before(out[j].Invoke) })
	return out
}

// PartName is how participant i is named in reports.
func PartName(i int) string { return "p" + itoa(int64(i)) }

func itoa(i int64) string { return strconv.FormatInt(i, 10) }
