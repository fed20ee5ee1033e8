package mutex

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Multi is a set of locks taken and released as one: Curator's
// InterProcessMultiLock, with the locks taken in one canonical order (see
// the package documentation, "Several locks at once"). A *Multi is one
// handle: goroutines that share it exclude each other as with sync.Mutex.
// A zero Multi returns an error wrapping zkrecipes.ErrInvalidArgument from
// every method that returns one.
type Multi struct {
	locks []Locker // in the order they are taken: by path
	paths []string // locks[i].Path()

	gate chan struct{} // one slot: taken by the goroutine that locks, until Unlock

	// skipFast counts the Locks left that go straight to the ordered path
	// (the try of every lock at once found one taken lately). Guarded by
	// gate.
	skipFast int

	mu   sync.Mutex
	held *multiHolding // the current holding, or nil
}

// multiHolding is one holding of every lock of a Multi.
type multiHolding struct {
	lost     chan struct{} // closed once any of the locks may be gone
	lostOnce sync.Once
	quit     chan struct{} // closed by Unlock: the watchers return
	wg       sync.WaitGroup
}

// NewMulti returns a handle on the mutexes at paths (relative to the
// client's namespace), each made as New makes one with opts: Curator's
// InterProcessMultiLock(client, paths). It does no I/O. An empty set, a
// path given twice, a nil client or a bad option is an error wrapping
// zkrecipes.ErrInvalidArgument; a bad path a *client.PathError.
func NewMulti(c *client.Client, paths []string, opts ...Option) (*Multi, error) {
	if c == nil {
		return nil, errs.Invalid("multi-lock: nil client")
	}
	if len(paths) == 0 {
		return nil, errs.Invalid("multi-lock: no paths")
	}
	locks := make([]Locker, 0, len(paths))
	for _, p := range paths {
		m, err := New(c, p, opts...)
		if err != nil {
			return nil, err
		}
		locks = append(locks, m)
	}
	return NewMultiOf(locks...)
}

// NewMultiOf returns a handle on the given locks, of any kind (mutexes,
// either side of a read/write lock, semaphore mutexes): Curator's
// InterProcessMultiLock(locks). It does no I/O. The Multi owns the locks
// from then on: lock and unlock them through it only. No locks, a nil or
// zero lock, or two locks on one path (the read and the write side of one
// read/write lock included) is an error wrapping
// zkrecipes.ErrInvalidArgument.
//
// The locks are taken in the order of their paths, which are relative to
// their clients' namespaces: give one Multi locks of one client, or of
// clients with the same namespace, so that every process orders them
// alike.
func NewMultiOf(locks ...Locker) (*Multi, error) {
	if len(locks) == 0 {
		return nil, errs.Invalid("multi-lock: no locks")
	}
	sorted := make([]Locker, 0, len(locks))
	for i, l := range locks {
		if l == nil || l.Path() == "" {
			return nil, errs.Invalid("multi-lock: lock %d is nil or a zero value", i+1)
		}
		sorted = append(sorted, l)
	}
	slices.SortStableFunc(sorted, func(a, b Locker) int { return compareStrings(a.Path(), b.Path()) })
	paths := make([]string, len(sorted))
	for i, l := range sorted {
		paths[i] = l.Path()
		if i > 0 && paths[i] == paths[i-1] {
			return nil, errs.Invalid("multi-lock: path %s given twice", paths[i])
		}
	}
	return &Multi{locks: sorted, paths: paths, gate: make(chan struct{}, 1)}, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (m *Multi) valid() bool { return m != nil && m.gate != nil }

var errMultiZero = errs.Invalid("zero Multi: make one with NewMulti or NewMultiOf")

// Paths returns the locks' paths in the order they are taken (sorted); nil
// for a zero Multi.
func (m *Multi) Paths() []string {
	if !m.valid() {
		return nil
	}
	return slices.Clone(m.paths)
}

// Locks returns the locks in the order they are taken (by path); nil for a
// zero Multi. Read them (Token, Node, Participants); lock and unlock
// through the Multi.
func (m *Multi) Locks() []Locker {
	if !m.valid() {
		return nil
	}
	return slices.Clone(m.locks)
}

// current is the holding, or nil.
func (m *Multi) current() *multiHolding {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.held
}

// IsHeld reports whether this handle holds every lock and none of them may
// be gone (Lost is open).
func (m *Multi) IsHeld() bool {
	if !m.valid() {
		return false
	}
	h := m.current()
	return h != nil && !isClosed(h.lost)
}

// Lost returns a channel closed once any of the locks of the current
// holding may be gone (see Mutex.Lost: a suspended connection, a lost
// session, a deleted node), and on Unlock. On a handle that does not hold,
// it is already closed.
func (m *Multi) Lost() <-chan struct{} {
	if !m.valid() {
		return closedChan
	}
	if h := m.current(); h != nil {
		return h.lost
	}
	return closedChan
}

// Token returns the fencing token of the lock at path (one of Paths): its
// node's creation zxid. A resource guarded by one of the paths takes that
// path's token: tokens grow from one holder of a path to the next, not
// across paths. zkrecipes.ErrNotHeld when the handle does not hold,
// zkrecipes.ErrLost once that lock may be gone, zkrecipes.ErrInvalidArgument
// for a path not in the set.
func (m *Multi) Token(ctx context.Context, path string) (int64, error) {
	if !m.valid() {
		return 0, errMultiZero
	}
	i := slices.Index(m.paths, path)
	if i < 0 {
		return 0, errs.Invalid("multi-lock: %s is not one of its paths", path)
	}
	if m.current() == nil {
		return 0, fmt.Errorf("multi-lock %s: %w", path, zkrecipes.ErrNotHeld)
	}
	return m.locks[i].Token(ctx)
}

// Tokens returns the fencing token of every lock, by path (see Token). It
// fails as Token does for the first lock that has none.
func (m *Multi) Tokens(ctx context.Context) (map[string]int64, error) {
	if !m.valid() {
		return nil, errMultiZero
	}
	out := make(map[string]int64, len(m.paths))
	for _, p := range m.paths {
		tok, err := m.Token(ctx, p)
		if err != nil {
			return nil, err
		}
		out[p] = tok
	}
	return out, nil
}

var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
