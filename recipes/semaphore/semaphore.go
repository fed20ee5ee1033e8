package semaphore

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/check"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// The names Curator's InterProcessSemaphoreV2 uses under a semaphore's path.
const (
	// LocksDir is the directory of the mutex that serialises acquirers.
	LocksDir = "locks"
	// LeasesDir is the directory of the lease nodes.
	LeasesDir = "leases"
	// LeaseName is the name of every lease node, after its protection
	// prefix and before its sequence number: _c_<uuid>-lease-<seq>.
	LeaseName = "lease-"
)

// Semaphore is a handle on a distributed counting semaphore: see the
// package documentation. It is safe for concurrent use; goroutines that
// share it take their leases one acquire at a time (they queue in the
// process for its `locks` mutex, without a node each). A zero Semaphore
// returns an error wrapping zkrecipes.ErrInvalidArgument from every method.
type Semaphore struct {
	c      *client.Client
	path   string
	leases string        // path + "/leases"
	max    int           // the constant limit, or 0 when count gives it
	count  *shared.Count // the limit's source (NewWithCount), or nil
	lock   *mutex.Mutex  // the mutex at path + "/locks"
	o      options
	slow   atomic.Bool // the fast path (fast.go) declined lately
	recipe string      // its name to the client's hooks (client.Hooks)
}

// Option configures a Semaphore (or a semaphore Mutex).
type Option func(*options) error

type options struct {
	data                  []byte
	lostOnSessionLossOnly bool
	limitCheck            bool
}

// WithLimitCheck makes every acquire check that all handles on the path
// use one limit, as kazoo's and Consul's semaphores do (Curator's does not).
// While it holds the semaphore's `locks` mutex, an acquire reads the
// semaphore node's data: when it is empty, it writes its limit there in
// decimal; when it is a different number, it fails with a *MaxConflictError
// (errors.Is(err, ErrMaxConflict)) and leaves no node. Data that is not a
// number is ignored, so paths that Curator's recipes also use still work.
// The node is a container: once the semaphore is unused and reaped, the next
// user's limit is written afresh. It costs one read per acquire (and one
// write on first use). It cannot be combined with NewWithCount, whose limit
// changes by design.
func WithLimitCheck() Option {
	return func(o *options) error {
		o.limitCheck = true
		return nil
	}
}

// WithData sets the data of the lease nodes (default: this host's IP
// address, as Curator writes it). Holders returns it, so it can say who
// holds each lease.
func WithData(data []byte) Option {
	return func(o *options) error {
		o.data = append([]byte(nil), data...)
		return nil
	}
}

// WithLostOnSessionLossOnly makes a Lease's Lost channel close only when
// the session is lost, not already when the connection is suspended. Fewer
// false alarms, but the lease may already be someone else's by then (see
// the mutex package's documentation of the same option).
func WithLostOnSessionLossOnly() Option {
	return func(o *options) error {
		o.lostOnSessionLossOnly = true
		return nil
	}
}

// New returns a handle on the semaphore at path (relative to the client's
// namespace) that lets at most maxLeases leases be held at once. It does no
// I/O. maxLeases is this handle's own setting: as in Curator, nothing on the
// server checks that every handle on a path uses the same, unless
// WithLimitCheck asks for it.
func New(c *client.Client, p string, maxLeases int, opts ...Option) (*Semaphore, error) {
	if maxLeases <= 0 {
		return nil, errs.Invalid("maxLeases must be positive, not %d", maxLeases)
	}
	return newSemaphore(c, p, maxLeases, nil, opts)
}

// NewWithCount returns a handle on the semaphore at path whose limit is the
// value of a shared count (Curator's InterProcessSemaphoreV2 with a
// SharedCountReader), so every process can change it at run time. It does
// no I/O; the count must be started (Start) before the first acquire, and
// stays the caller's to Close.
//
// Every decision reads the count's latest value. Raising it wakes blocked
// acquirers at once; lowering it revokes no lease, but makes acquirers
// wait until the holders are below the new limit. A count of zero or less
// lets nobody in. AcquireN with more leases than the current limit waits
// for the count to be raised, rather than failing. An acquire fails when
// the count cannot be read (not started, closed, bad data, node deleted).
func NewWithCount(c *client.Client, p string, count *shared.Count, opts ...Option) (*Semaphore, error) {
	if count == nil {
		return nil, errs.Invalid("nil count")
	}
	s, err := newSemaphore(c, p, 0, count, opts)
	if err != nil {
		return nil, err
	}
	if s.o.limitCheck {
		return nil, errs.Invalid("WithLimitCheck needs a constant limit, not a shared count")
	}
	return s, nil
}

func newSemaphore(c *client.Client, p string, maxLeases int, count *shared.Count, given []Option) (*Semaphore, error) {
	if err := check.ClientPath(c, p, "a semaphore needs a directory of its own, not the root"); err != nil {
		return nil, err
	}
	var o options
	if err := option.Apply("semaphore "+p, &o, given); err != nil {
		return nil, err
	}
	if o.data == nil {
		o.data = lockq.DefaultData()
	}
	// The mutex only keeps acquirers from waiting side by side; losing it
	// while waiting is noticed (and the wait begun again) on session loss
	// or when its node is deleted, not on a mere suspension.
	// It is the semaphore's own, not the application's: it is not reported
	// to the client's hooks.
	unreported := func(o *lockq.Options) error {
		o.Unreported = true
		return nil
	}
	lock, err := mutex.New(c, path.Join(p, LocksDir), mutex.WithLostOnSessionLossOnly(), unreported)
	if err != nil {
		return nil, err
	}
	return &Semaphore{c: c, path: p, leases: path.Join(p, LeasesDir), max: maxLeases, count: count, lock: lock, o: o,
		recipe: client.RecipeSemaphore}, nil
}

// limit is the number of leases allowed now: the constant, or the count's
// latest value (never below 0).
func (s *Semaphore) limit() (int, error) {
	if s.count == nil {
		return s.max, nil
	}
	v, err := s.count.Get()
	if err != nil {
		return 0, fmt.Errorf("zkrecipes: semaphore %s: reading its limit: %w", s.path, err)
	}
	return max(int(v.Count), 0), nil
}

// checkLimit is WithLimitCheck's test, made while holding the locks mutex
// (so the semaphore node exists: it is the mutex directory's parent).
func (s *Semaphore) checkLimit(ctx context.Context) error {
	want := strconv.Itoa(s.max)
	for {
		data, st, err := s.c.Get(ctx, s.path)
		if err != nil {
			return err
		}
		text := strings.TrimSpace(string(data))
		if text == "" {
			_, err := s.c.Set(ctx, s.path, []byte(want), st.Version)
			if errors.Is(err, zk.ErrBadVersion) {
				continue // written meanwhile (by a Java process, say): read again
			}
			return err
		}
		stored, err := strconv.Atoi(text)
		if err != nil || stored == s.max {
			return nil
		}
		return &MaxConflictError{Path: s.path, Local: s.max, Stored: stored}
	}
}

func (s *Semaphore) valid() bool { return s != nil && s.c != nil }

// Path is the semaphore's path ("" for a zero Semaphore).
func (s *Semaphore) Path() string {
	if !s.valid() {
		return ""
	}
	return s.path
}

// MaxLeases is the handle's limit: the constant given to New, or the
// shared count's latest value (0 for a zero Semaphore, or when the count
// cannot be read).
func (s *Semaphore) MaxLeases() int {
	if !s.valid() {
		return 0
	}
	n, _ := s.limit()
	return n
}

// Holder is one lease node, as Holders lists it.
type Holder struct {
	// Name is the node's name, Path its path (relative to the namespace).
	Name, Path string
	// Data is the node's data: by default the holder's IP address.
	Data []byte
	// Czxid is the node's creation zxid: the lease's fencing token.
	Czxid int64
}

// Holders lists the lease nodes in sequence order, with their data. Like
// Curator's getParticipantNodes it lists every child of the leases
// directory: while an acquirer waits for a lease, its own node is listed
// too (it is counted against the limit as well). Nodes that vanish while
// being read are left out.
func (s *Semaphore) Holders(ctx context.Context) ([]Holder, error) {
	kids, err := s.children(ctx)
	if err != nil {
		return nil, err
	}
	sort.Slice(kids, func(i, j int) bool {
		ki, _ := lockq.SortKey(kids[i], []string{LeaseName})
		kj, _ := lockq.SortKey(kids[j], []string{LeaseName})
		if ki != kj {
			return ki < kj
		}
		return kids[i] < kids[j]
	})
	out := make([]Holder, 0, len(kids))
	for _, k := range kids {
		p := path.Join(s.leases, k)
		data, st, err := s.c.Get(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Holder{Name: k, Path: p, Data: data, Czxid: st.Czxid})
	}
	return out, nil
}

// Available is how many leases are free now by this handle's limit: the
// limit minus the lease nodes (never below 0). It is a snapshot: another
// process may take or free leases the moment after.
func (s *Semaphore) Available(ctx context.Context) (int, error) {
	kids, err := s.children(ctx)
	if err != nil {
		return 0, err
	}
	lim, err := s.limit()
	if err != nil {
		return 0, err
	}
	return max(lim-len(kids), 0), nil
}

// children lists the leases directory; a missing one has none.
func (s *Semaphore) children(ctx context.Context) ([]string, error) {
	if !s.valid() {
		return nil, errZero
	}
	if ctx == nil {
		return nil, errs.Invalid("nil context")
	}
	kids, _, err := s.c.Children(ctx, s.leases)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return kids, err
}
