package lockq

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// Listing (used by the semaphore for its leases) is a listing of a
// directory sent while the create of a node in it
// is still in flight, to save the round trip that listing after the create
// would cost. ZooKeeper answers one session's requests in the order they
// were sent, so a listing sent after the create reflects it. The two are
// sent by two goroutines, though, and the listing may go first: then it
// lacks the new node, and its user must throw it away and list again. A
// listing that shows the new node was taken after the create, so it is as
// good as one sent after the create's reply.
type Listing struct {
	done  chan struct{}
	disc  <-chan struct{} // c.Disconnected(), taken before the listing was sent
	kids  []string
	watch *client.Watch
	err   error

	mu       sync.Mutex
	finished bool // the reply is in
	left     bool // Take gave up (its ctx ended): the watch is no one's
}

// StartListing sends the listing of dir (with a children watch if watch is
// set) on a goroutine of its own, which ends with the reply or when ctx
// ends. Call it just before the create: the create's own request goroutine
// then usually runs first. A watch that no Take returns is given up.
func StartListing(ctx context.Context, c *client.Client, dir string, watch bool) *Listing {
	l := &Listing{done: make(chan struct{}), disc: c.Disconnected()}
	go func() {
		defer close(l.done)
		if watch {
			l.kids, _, l.watch, l.err = c.ChildrenWatch(ctx, dir)
		} else {
			l.kids, _, l.err = c.Children(ctx, dir)
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.finished = true
		if l.left {
			l.watch.Stop()
		}
	}()
	return l
}

// Take waits for the listing and returns it if it shows every one of
// names, with its watch, which is then the caller's to stop. ok is false
// when it must be thrown away and the directory listed again: a nil
// Listing, one that lacks a name or found no directory (it went ahead of
// the create). Any other failure of the listing (or ctx ending) is
// returned as err, as a listing sent after the create would have failed.
// disc is the client's Disconnected channel as it was before the listing
// was sent: a decision made on kids holds only while it stays open. Take
// gives up the listing's watch whenever it does not return it.
func (l *Listing) Take(ctx context.Context, names ...string) (kids []string, watch *client.Watch, disc <-chan struct{}, ok bool, err error) {
	if l == nil {
		return nil, nil, nil, false, nil
	}
	select {
	case <-l.done:
	case <-ctx.Done():
		l.mu.Lock()
		l.left = true
		if l.finished { // the reply came meanwhile: its goroutine saw no left
			l.watch.Stop()
		}
		l.mu.Unlock()
		return nil, nil, nil, false, ctx.Err()
	}
	if errors.Is(l.err, zk.ErrNoNode) {
		return nil, nil, nil, false, nil
	}
	if l.err != nil {
		return nil, nil, nil, false, l.err
	}
	for _, name := range names {
		if !slices.Contains(l.kids, name) {
			l.watch.Stop()
			return nil, nil, nil, false, nil
		}
	}
	return l.kids, l.watch, l.disc, true, nil
}
