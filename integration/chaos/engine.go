package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// sleep waits d or until ctx ends; it reports whether d passed.
var sleep = lockq.Sleep

// Kind is a kind of fault the engine can draw.
type Kind string

// The kinds of fault. Link faults hit one participant's link; server faults
// hit one server of the cluster.
const (
	CutShort        Kind = "cut<T"       // link cut for a fraction of the session timeout
	CutAround       Kind = "cut~T"       // link cut for about one session timeout
	CutLong         Kind = "cut>T"       // link cut for well over one session timeout
	BlackholeShort  Kind = "hole<T"      // link blackholed, shorter than the session timeout
	BlackholeAround Kind = "hole~T"      // link blackholed for about one session timeout
	BlackholeLong   Kind = "hole>T"      // link blackholed for well over the session timeout
	DropCreate      Kind = "drop-create" // the reply to the next create (or multi) is lost
	DropChildren    Kind = "drop-children"
	DropDelete      Kind = "drop-delete"
	DropSetData     Kind = "drop-set" // the reply to the next setData is lost (not in AllKinds: a workload asks for it)
	// CutSetWatches cuts the link, shorter than the session timeout, with
	// the reconnect's SetWatches (or SetWatches2) request cut midway by the
	// link as it is written: the connection after it must set the watches
	// again (not in AllKinds: a workload with watches asks for it).
	CutSetWatches Kind = "cut-setwatches"
	ServerPause   Kind = "pause"       // SIGSTOP one server, then SIGCONT
	ServerKill    Kind = "kill"        // SIGKILL one server, then start it again
	ServerStop    Kind = "stop"        // stop one server gracefully, then start it again
	RestartAll    Kind = "restart-all" // stop every server, then start them all
)

// AllKinds lists every kind the engine draws from by default.
var AllKinds = []Kind{CutShort, CutAround, CutLong, BlackholeShort, BlackholeAround, BlackholeLong,
	DropCreate, DropChildren, DropDelete, ServerPause, ServerKill, ServerStop, RestartAll}

// serverKind reports whether k hits servers rather than a link.
func serverKind(k Kind) bool {
	return k == ServerPause || k == ServerKill || k == ServerStop || k == RestartAll
}

// Fault is one fault the engine applied, with its instants.
type Fault struct {
	Kind   Kind
	Target string    // "p3" for a participant's link, "s0" for a server, "all"
	Role   string    // a server fault in an ensemble: "leader", "follower", "holder" or "" (any)
	Start  time.Time // when it was applied (armed, for a dropped reply)
	Fired  time.Time // a dropped reply: when the request went out (zero if never)
	End    time.Time // when it was undone (restored, resumed, restarted)
	Err    error     // the harness's error, if applying or undoing failed
}

func (f Fault) String() string {
	s := fmt.Sprintf("%s on %s", f.Kind, f.Target)
	if f.Err != nil {
		s += fmt.Sprintf(" (error: %v)", f.Err)
	}
	return s
}

// Target is what the engine needs of one participant: its link.
type Target struct {
	Name string
	Link *faultlink.Link
}

// Engine draws faults from a seed. Its fields are its configuration; set them
// before Run.
type Engine struct {
	Seed    uint64
	Targets []Target
	Cluster *zktest.Cluster // nil: no server faults
	Session time.Duration   // the participants' session timeout
	Kinds   []Kind          // nil: AllKinds (server kinds only with a Cluster)
	// MaxGap is the longest quiet time between two faults (default Session).
	MaxGap time.Duration
	Events *Timeline // where faults are also noted (may be nil)
	// Holder, if set, names the participant holding now ("" if none): half
	// of the link faults then hit the holder, so that holdings end by faults.
	Holder func() string

	mu     sync.Mutex
	faults []Fault
}

// Faults returns the faults applied so far.
func (e *Engine) Faults() []Fault {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Fault(nil), e.faults...)
}

// Counts returns how many faults of each kind were applied; a server
// fault's kind is followed by the role of the server it hit, as in
// "kill@leader", "pause@follower" or "stop@p2's server".
func (e *Engine) Counts() map[string]int {
	m := map[string]int{}
	for _, f := range e.Faults() {
		k := string(f.Kind)
		if f.Role != "" {
			k += "@" + f.Role
		}
		m[k]++
	}
	return m
}

// Run applies faults for the fault phase (until ctx ends or d passes), one
// at a time, each undone before the next, then returns: the calm phase is
// the caller's. Every fault is undone before Run returns.
func (e *Engine) Run(ctx context.Context, d time.Duration) {
	rng := rand.New(rand.NewPCG(e.Seed, e.Seed^0x9e3779b97f4a7c15))
	kinds := e.Kinds
	if kinds == nil {
		for _, k := range AllKinds {
			if serverKind(k) && e.Cluster == nil {
				continue
			}
			kinds = append(kinds, k)
		}
	}
	gap := e.MaxGap
	if gap <= 0 {
		gap = e.Session
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	defer e.disarm()
	defer wg.Wait()
	for {
		if !sleep(ctx, time.Duration(rng.Int64N(int64(gap)))+50*time.Millisecond) {
			return
		}
		k := kinds[rng.IntN(len(kinds))]
		e.apply(ctx, rng, k, &wg)
	}
}

// span draws a duration for a fault of kind k: a fraction, about one, or
// over one session timeout.
func (e *Engine) span(rng *rand.Rand, k Kind) time.Duration {
	t := float64(e.Session)
	var f float64
	switch k {
	case CutShort, BlackholeShort, CutSetWatches:
		f = 0.1 + 0.4*rng.Float64() // 0.1–0.5 T
	case CutAround, BlackholeAround:
		f = 0.8 + 0.4*rng.Float64() // 0.8–1.2 T
	case CutLong, BlackholeLong:
		f = 1.5 + 1.5*rng.Float64() // 1.5–3 T
	default:
		f = 0.2 + 1.3*rng.Float64() // server faults: 0.2–1.5 T
	}
	return time.Duration(f * t)
}

func (e *Engine) record(f Fault) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = append(e.faults, f)
	return len(e.faults) - 1
}

func (e *Engine) update(i int, f func(*Fault)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f(&e.faults[i])
}

func (e *Engine) note(what string) {
	if e.Events != nil {
		e.Events.Add("fault", what)
	}
}

// apply applies one fault of kind k, waits its span (the span ends early if
// ctx ends, the fault is still undone) and undoes it. A dropped reply is
// only armed; wg waits for it to fire or for ctx to end.
func (e *Engine) apply(ctx context.Context, rng *rand.Rand, k Kind, wg *sync.WaitGroup) {
	d := e.span(rng, k)
	if serverKind(k) {
		e.serverFault(ctx, rng, k, d)
		return
	}
	tg := e.Targets[rng.IntN(len(e.Targets))]
	if rng.IntN(2) == 0 {
		if h, ok := e.holder(); ok {
			tg = h
		}
	}
	f := Fault{Kind: k, Target: tg.Name, Start: time.Now()}
	switch k {
	case DropCreate, DropChildren, DropDelete, DropSetData:
		ops := map[Kind][]int32{
			// A transaction (Run's release and next node in one) is both a
			// create and a delete.
			DropCreate:   {faultlink.OpCreate, faultlink.OpCreate2, faultlink.OpCreateContainer, faultlink.OpMulti},
			DropChildren: {faultlink.OpGetChildren, faultlink.OpGetChildren2},
			DropDelete:   {faultlink.OpDelete, faultlink.OpMulti},
			DropSetData:  {faultlink.OpSetData},
		}[k]
		fired := tg.Link.DropReplyTo(ops...)
		i := e.record(f)
		e.note(fmt.Sprintf("%s armed on %s", k, tg.Name))
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-fired:
				at := time.Now()
				e.update(i, func(f *Fault) { f.Fired, f.End = at, at })
				e.note(fmt.Sprintf("%s fired on %s", k, tg.Name))
			case <-ctx.Done():
			}
		}()
		return
	case CutSetWatches:
		fired := tg.Link.CutDuring(faultlink.OpSetWatches, faultlink.OpSetWatches2)
		tg.Link.Cut()
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-fired:
				e.note(fmt.Sprintf("%s: the reconnect's setWatches cut on %s", k, tg.Name))
			case <-ctx.Done():
			}
		}()
	case CutShort, CutAround, CutLong:
		tg.Link.Cut()
	default:
		tg.Link.Blackhole()
	}
	i := e.record(f)
	e.note(fmt.Sprintf("%s %s for %v", k, tg.Name, d.Round(time.Millisecond)))
	sleep(ctx, d)
	tg.Link.Restore()
	e.update(i, func(f *Fault) { f.End = time.Now() })
	e.note(fmt.Sprintf("restore %s", tg.Name))
}

// holder returns the target of the participant holding now, if any.
func (e *Engine) holder() (Target, bool) {
	if e.Holder == nil {
		return Target{}, false
	}
	name := e.Holder()
	for _, t := range e.Targets {
		if name != "" && t.Name == name {
			return t, true
		}
	}
	return Target{}, false
}

// disarm disarms the dropped-reply faults that never fired, so that none
// fires in the calm phase.
func (e *Engine) disarm() {
	for _, t := range e.Targets {
		if n := t.Link.Disarm(); n > 0 {
			e.note(fmt.Sprintf("%d dropped-reply faults on %s disarmed, never fired", n, t.Name))
		}
	}
}

// pickServer chooses the server a server fault hits: in an ensemble, the
// server the holder is connected to, the leader, or a follower, at random
// (any server when that one cannot be told); the only one otherwise. It
// returns the server's index and how it was chosen.
func (e *Engine) pickServer(ctx context.Context, rng *rand.Rand) (int, string) {
	n := e.Cluster.Size()
	random := rng.IntN(n)
	if n == 1 {
		return 0, ""
	}
	switch rng.IntN(3) {
	case 0:
		if h, ok := e.holder(); ok {
			if i := slices.Index(e.Cluster.Addrs(), h.Link.Remote()); i >= 0 {
				return i, h.Name + "'s server"
			}
		}
	case 1:
		if i, err := e.Cluster.Leader(ctx); err == nil {
			return i, "leader"
		}
	default:
		if l, err := e.Cluster.Leader(ctx); err == nil {
			return (l + 1 + rng.IntN(n-1)) % n, "follower"
		}
	}
	return random, ""
}

// serverFault applies a server fault of kind k for d, then undoes it.
func (e *Engine) serverFault(ctx context.Context, rng *rand.Rand, k Kind, d time.Duration) {
	undoCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	servers := []int{}
	target, role := "all", ""
	if k == RestartAll {
		for i := range e.Cluster.Size() {
			servers = append(servers, i)
		}
	} else {
		s, r := e.pickServer(undoCtx, rng)
		servers, target, role = []int{s}, fmt.Sprintf("s%d", s), r
	}
	if role != "" {
		target += " (" + role + ")"
	}
	f := Fault{Kind: k, Target: target, Role: role, Start: time.Now()}
	if strings.HasSuffix(role, "'s server") {
		f.Role = "holder"
	}
	var errs []error
	for _, s := range servers {
		var err error
		switch k {
		case ServerPause:
			err = e.Cluster.PauseServer(undoCtx, s)
		case ServerKill:
			err = e.Cluster.KillServer(undoCtx, s)
		default:
			err = e.Cluster.StopServer(undoCtx, s)
		}
		errs = append(errs, err)
	}
	f.Err = errors.Join(errs...)
	i := e.record(f)
	e.note(fmt.Sprintf("%s %s for %v", k, target, d.Round(time.Millisecond)))
	sleep(ctx, d)
	errs = make([]error, len(servers))
	var wg sync.WaitGroup
	for j, s := range servers { // together: one server of an ensemble alone cannot serve
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k == ServerPause {
				errs[j] = e.Cluster.ResumeServer(undoCtx, s)
			} else {
				errs[j] = e.Cluster.StartServer(undoCtx, s)
			}
		}()
	}
	wg.Wait()
	err := errors.Join(errs...)
	e.update(i, func(f *Fault) {
		f.End = time.Now()
		if err != nil && f.Err == nil {
			f.Err = err
		}
	})
	e.note(fmt.Sprintf("end %s %s", k, target))
}
