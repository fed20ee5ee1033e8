package group

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// Option configures a Member.
type Option func(*options) error

type options struct{}

// Member is one member of a group: see the package documentation. It is
// safe for concurrent use. A zero Member returns an error wrapping
// zkrecipes.ErrInvalidArgument from every method that returns an error, and nothing
// from the others.
type Member struct {
	path  string
	id    string
	own   *node.Node
	view  *cache.Cache
	wg    sync.WaitGroup // Events' translators and the view's starter
	close sync.Once
	err   error // Close's

	stopCtx  context.Context // ended by Close: stops the view's starter
	stop     context.CancelFunc
	viewUp   chan struct{} // closed once the starter is done (viewErr is set)
	viewErr  error         // the view's Start error, if the starter called it
	viewGone bool          // the starter ended without starting the view

	mu      sync.Mutex
	started bool // Start succeeded
	closed  bool // Close was called
}

// New returns a member with id (a node name: not empty, no '/') and data
// of the group at path (relative to the client's namespace). It does no
// I/O: Start joins.
func New(c *client.Client, path, id string, data []byte, opts ...Option) (*Member, error) {
	if c == nil {
		return nil, errs.Invalid("nil client")
	}
	if err := client.ValidatePath(path); err != nil {
		return nil, err
	}
	if id == "" || strings.Contains(id, "/") {
		return nil, errs.Invalid("member id %q: must be one node name, not empty, without '/'", id)
	}
	own := memberPath(path, id)
	if err := client.ValidatePath(own); err != nil {
		return nil, errs.Invalid("member id %q: %v", id, err)
	}
	var o options
	if err := option.Apply("group member "+own, &o, opts); err != nil {
		return nil, err
	}
	n, err := node.New(c, own, data)
	if err != nil {
		return nil, err
	}
	v, err := cache.New(c, path, cache.WithDepth(1))
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Member{path: path, id: id, own: n, view: v, stopCtx: ctx, stop: stop, viewUp: make(chan struct{})}, nil
}

func memberPath(group, id string) string {
	if group == "/" {
		return "/" + id
	}
	return group + "/" + id
}

func (m *Member) zero() bool { return m == nil || m.own == nil }

// ID is the member's id.
func (m *Member) ID() string {
	if m.zero() {
		return ""
	}
	return m.id
}

// Path is the group's path, relative to the client's namespace.
func (m *Member) Path() string {
	if m.zero() {
		return ""
	}
	return m.path
}

// Start joins the group and returns once the member's node was made (or
// taken over) and the group was loaded with it, or ctx ends. The node is
// kept and the group kept current until Close; the first load comes after
// the node was made, so this member is in it: its Joined comes before
// Loaded (see Events). When ctx ends first (or the server refuses the
// node for now), Start returns that error and the member goes on joining
// in the background: Close it all the same. A second Start returns an
// error wrapping zkrecipes.ErrAlreadyStarted, a Start after Close one
// wrapping zkrecipes.ErrClosed.
func (m *Member) Start(ctx context.Context) error {
	if m.zero() {
		return errZero()
	}
	m.mu.Lock()
	switch {
	case m.closed:
		m.mu.Unlock()
		return life.Closed
	case m.started:
		m.mu.Unlock()
		return life.AlreadyStarted
	}
	m.started = true
	// Subscribe before the node's start, so that its first Created (or
	// Adopted) is seen.
	made, stopMade := m.own.Events()
	m.wg.Add(1)
	go m.startView(made, stopMade)
	m.mu.Unlock()
	if err := m.own.Start(ctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("zkrecipes: start group member %s: %w", memberPath(m.path, m.id), ctx.Err())
		}
		return m.closedOr(err)
	}
	select {
	case <-m.viewUp:
	case <-ctx.Done():
		return fmt.Errorf("zkrecipes: start group member %s: %w", memberPath(m.path, m.id), ctx.Err())
	}
	switch {
	case m.viewErr != nil:
		return m.closedOr(m.viewErr)
	case m.viewGone:
		// The node was made, then the member or its client closed before
		// the view could start.
		if err := m.usable(true); err != nil {
			return err
		}
		return errs.ClientClosed
	}
	return nil
}

// startView starts the view (and waits for its first load) once the
// member's node was first made or taken over, unless Close or the
// client's close comes first.
func (m *Member) startView(made <-chan node.Event, stopMade func()) {
	defer m.wg.Done()
	defer close(m.viewUp)
	defer stopMade()
	for {
		select {
		case ev, ok := <-made:
			switch {
			case !ok: // the node closed: with the member, or with the client
				m.viewGone = true
				return
			case ev.Type == node.Created, ev.Type == node.Adopted:
				m.viewErr = m.view.Start(m.stopCtx)
				if m.stopCtx.Err() != nil {
					m.viewErr = nil
					m.viewGone = true
				}
				return
			}
		case <-m.stopCtx.Done():
			m.viewGone = true
			return
		}
	}
}

// usable is nil, or why the member cannot be used now: closed, or (with
// needStart) not started.
func (m *Member) usable(needStart bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return life.Closed
	case needStart && !m.started:
		return life.NotStarted
	}
	return nil
}

// closedOr is err, or the member's own error when err says closed and the
// member is (its node or cache closed with it, not with the client).
func (m *Member) closedOr(err error) error {
	if errors.Is(err, zkrecipes.ErrClosed) && m.usable(false) != nil {
		return life.Closed
	}
	return err
}

// Members returns the group as last seen: each member's id and data. Until
// Close this member is always in it, with its latest data, as in Curator
// (before the first load too). After Close it returns nil: the member has
// left and no longer sees the group (Curator's getCurrentMembers, its cache
// cleared by close, would still list this member alone).
func (m *Member) Members() map[string][]byte {
	if m.zero() {
		return nil
	}
	if m.usable(false) != nil {
		return nil
	}
	kids := m.view.Children(m.path)
	out := make(map[string][]byte, len(kids)+1)
	for _, k := range kids {
		out[idOf(k.Path)] = k.Data
	}
	out[m.id] = m.own.Data()
	return out
}

// SetData sets the member's data: written to its node now if it is there
// (within ctx), and kept for every re-create.
func (m *Member) SetData(ctx context.Context, data []byte) error {
	if m.zero() {
		return errZero()
	}
	if err := m.usable(false); err != nil {
		return err
	}
	return m.closedOr(m.own.SetData(ctx, data))
}

// Events returns a channel that receives every change of the group from now
// on (Joined, Updated, Left, and Loaded once after the first load when the
// subscription came before it), in order and none dropped, and a cancel
// function. The channel is closed by cancel or by Close. The first load
// comes after this member's node was made, so its Joined comes before
// Loaded (unless its node was deleted again before the load: the member
// then joins again after it).
func (m *Member) Events() (<-chan Event, func()) {
	if m.zero() {
		return pubsub.Closed[Event](), func() {}
	}
	in, stopIn := m.view.Events()
	out := pubsub.New[Event]()
	m.wg.Add(2)
	go func() {
		defer m.wg.Done()
		out.Run()
	}()
	go func() {
		defer m.wg.Done()
		defer out.Stop() // the cache closed, or cancel: end the channel too
		for ev := range in {
			if e, ok := m.translate(ev); ok {
				out.Push(e)
			}
		}
	}()
	return out.Out(), func() {
		stopIn()
		out.Stop()
	}
}

// translate turns a cache event about a child of the group into a member
// event; the group node's own events are not members'.
func (m *Member) translate(ev cache.Event) (Event, bool) {
	var t EventType
	switch ev.Type {
	case cache.Initialized:
		return Event{Type: Loaded}, true
	case cache.Created:
		t = Joined
	case cache.Changed:
		t = Updated
	case cache.Deleted:
		t = Left
	default:
		return Event{}, false
	}
	if ev.Node.Path == m.path {
		return Event{}, false
	}
	return Event{Type: t, ID: idOf(ev.Node.Path), Data: ev.Node.Data}, true
}

func idOf(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// Close leaves the group: the cache stops (every Events channel is closed)
// and the member's node is deleted with the client's guaranteed delete
// (within ctx, else in the background: the error then wraps
// zkrecipes.ErrDeletePending). As node.Node's Close, it never waits for a reconnect:
// without a connection it returns within about a second, nil when the
// member's session was lost (its node went with it), else an error
// wrapping zkrecipes.ErrDeletePending. A second Close waits for the first to
// end and returns the same result.
func (m *Member) Close(ctx context.Context) error {
	if m.zero() {
		return errZero()
	}
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.close.Do(func() {
		m.stop()
		viewErr := m.view.Close(ctx)
		m.err = errors.Join(m.own.Close(ctx), viewErr)
		m.wg.Wait()
	})
	return m.err
}
