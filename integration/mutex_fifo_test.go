package integration

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// mxQueue has a holder take the lock, then starts waiters one at a time
// (each on its own client), each only once the previous one's node is in the
// queue, releases the holder and checks that the waiters acquired in the
// order their nodes were created, each with the node it queued with.
func mxQueue(t *testing.T, ns string, waiters int) {
	t.Helper()
	ctx := ctxT(t, 60*time.Second)
	holder := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	require.NoError(t, holder.Lock(ctx))
	seen := map[string]bool{mxBase(holder.Node()): true}

	var (
		mu       sync.Mutex
		order    []int
		acquired = make([]string, waiters)
		queued   = make([]string, waiters)
		results  = make([]chan error, waiters)
	)
	for i := range waiters {
		m := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
		results[i] = make(chan error, 1)
		go func() {
			err := m.Lock(ctx)
			if err == nil {
				mu.Lock()
				order = append(order, i)
				acquired[i] = mxBase(m.Node())
				mu.Unlock()
				time.Sleep(5 * time.Millisecond) // hold a little, so a wrong order would show
				err = m.Unlock(ctx)
			}
			results[i] <- err
		}()
		ps := mxWaitQueued(t, holder, i+2)
		newest := ps[len(ps)-1].Name
		require.False(t, seen[newest], "waiter %d's node is not the last in the queue: %v", i, mxNames(ps))
		seen[newest] = true
		queued[i] = newest
		require.Equal(t, append([]string{mxBase(holder.Node())}, queued[:i+1]...), mxNames(ps),
			"the queue is not in creation order")
	}
	mu.Lock()
	require.Empty(t, order, "a waiter acquired while the holder held")
	mu.Unlock()
	require.NoError(t, holder.Unlock(ctx))
	for i, ch := range results {
		select {
		case err := <-ch:
			require.NoError(t, err, "waiter %d", i)
		case <-time.After(30 * time.Second):
			t.Fatalf("waiter %d never acquired", i)
		}
	}
	want := make([]int, waiters)
	for i := range want {
		want[i] = i
	}
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, want, order, "waiters did not acquire in creation order")
	require.Equal(t, queued, acquired, "a waiter acquired with a node other than its own")
}

// TestMutexFIFO checks that waiters acquire in the order their nodes were
// created.
func TestMutexFIFO(t *testing.T) {
	noLeaks(t)
	mxQueue(t, namespace(t), 8)
}

// TestMutexForeignChildren puts children that are no lock nodes into the
// lock directory, one sorting after the sequence numbers ("aaa-foreign") and
// one before them ("!first"; Curator's whole-name rule would put it first):
// they must not count as contenders, block acquisition or change the order,
// and the lock must leave them alone.
func TestMutexForeignChildren(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	admin := connect(t, clientOpts{ns: ns})
	foreign := []string{"!first", "aaa-foreign"}
	for _, name := range foreign {
		_, err := admin.Create(ctx, mxLockPath+"/"+name, []byte("not a lock"), 0, client.WithParents())
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, name := range foreign {
			_ = admin.DeleteIfExists(context.Background(), mxLockPath+"/"+name)
		}
	})

	// A lone contender acquires at once, with TryLock too.
	m := mxNew(t, admin, mxLockPath)
	require.NoError(t, m.TryLock(ctx), "foreign children blocked a free lock")
	ps, err := m.Participants(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{mxBase(m.Node())}, mxNames(ps), "foreign children listed as contenders")
	require.NoError(t, m.Unlock(ctx))

	mxQueue(t, ns, 4)

	kids := children(t, admin, mxLockPath)
	require.Equal(t, foreign, kids, "the lock touched foreign children or left nodes behind")
}

// TestMutexParticipants checks Participants' order (holder first) and the
// data of the nodes: WithData's bytes, else this host's address as Curator
// writes it.
func TestMutexParticipants(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	a := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath, mutex.WithData([]byte("node-A")))
	b := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	c := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath, mutex.WithData(nil))

	ps, err := a.Participants(ctx)
	require.NoError(t, err, "Participants of a lock whose directory does not exist")
	require.Empty(t, ps)

	require.NoError(t, a.Lock(ctx))
	rb := mxLockAsync(ctx, b)
	mxWaitQueued(t, a, 2)
	rc := mxLockAsync(ctx, c)
	ps = mxWaitQueued(t, a, 3)

	require.Equal(t, a.Node(), ps[0].Path, "the holder is not listed first")
	require.Equal(t, mxLockPath+"/"+ps[0].Name, ps[0].Path)
	require.Equal(t, mxTok(a), ps[0].Czxid)
	require.Equal(t, "node-A", string(ps[0].Data))
	require.Equal(t, mxDefaultData(t), string(ps[1].Data), "default node data")
	require.Equal(t, mxDefaultData(t), string(ps[2].Data), "WithData(nil) should mean the default")
	for i, p := range ps {
		require.Equal(t, mutex.LockName, p.Marker, "participant %d", i)
		require.Regexp(t, mxNodeName, p.Name, "participant %d", i)
	}
	require.Less(t, ps[0].Czxid, ps[1].Czxid)
	require.Less(t, ps[1].Czxid, ps[2].Czxid)

	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, await(t, rb, 10*time.Second, "b").err)
	ps = mxWaitQueued(t, a, 2)
	require.Equal(t, b.Node(), ps[0].Path, "the new holder is not listed first")
	require.NoError(t, b.Unlock(ctx))
	require.NoError(t, await(t, rc, 10*time.Second, "c").err)
	require.NoError(t, c.Unlock(ctx))
}
