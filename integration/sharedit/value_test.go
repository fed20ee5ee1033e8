package sharedit

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestSharedValue: arbitrary bytes (binary with zero bytes, empty, 64 KiB)
// written by one client reach the other through Events and Get, each with
// its version and mzxid, in order; the node holds exactly those bytes;
// readings are copies; the writer's own subscription, read only at the
// end, holds every value it wrote.
func TestSharedValue(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, one, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, time.Minute)
	reader := startBytes(t, itest.Connect(t, one, itest.Opts{NS: ns}), "/config", []byte("seed"))
	writer := startBytes(t, c, "/config", []byte("other seed"))
	require.Equal(t, []byte("seed"), value(t, writer).Data, "the first seed wins")
	changes, cancel := reader.Events()
	defer cancel()
	mine, cancelMine := writer.Events()
	defer cancelMine()

	big := bytes.Repeat([]byte{0xde, 0xad, 0, 0xbe}, 16<<10)
	values := [][]byte{{0, 1, 0, 255}, {}, big, []byte("last")}
	var written []shared.Versioned
	for _, data := range values {
		require.NoError(t, writer.Set(ctx, data))
		w := value(t, writer)
		written = append(written, w)
		got := itest.Await(t, changes, 10*time.Second, "the reader's change")
		require.Equal(t, w, got)
		require.True(t, bytes.Equal(data, got.Data))
		raw, st, err := c.Get(ctx, "/config")
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, raw), "the node holds the bytes")
		require.Equal(t, st.Version, got.Version)
		require.Equal(t, st.Mzxid, got.Mzxid)
	}
	v := value(t, reader)
	v.Data[0] = 'X'
	require.Equal(t, []byte("last"), value(t, reader).Data, "a reading is a copy")
	for i := range values {
		require.Equal(t, written[i], itest.Await(t, mine, 10*time.Second, "the writer's own change"))
	}
	itest.Pending(t, mine, 300*time.Millisecond, "a change after the last")
}

// TestTrySetValueRace: five clients TrySet from the same reading at once,
// round after round: exactly one wins each round, the node's version moves
// by one and holds the winner's bytes, and every loser's Get has the
// winner's value right after its TrySet.
func TestTrySetValueRace(t *testing.T) {
	itest.NoLeaks(t)
	trySetRace(t, one, 15)
}

func trySetRace(t *testing.T, cl *zktest.Cluster, rounds int) {
	const clients = 5
	ns := itest.Namespace(t)
	vals := make([]*shared.Bytes, clients)
	for i := range vals {
		vals[i] = startBytes(t, itest.Connect(t, cl, itest.Opts{NS: ns, Extra: []client.Option{client.WithServers(rotate(cl.Addrs(), i)...)}}), "/race", nil)
	}
	raw := itest.Connect(t, cl, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 2*time.Minute)
	for round := range rounds {
		_, st, err := raw.Get(ctx, "/race")
		require.NoError(t, err)
		prev := make([]shared.Versioned, clients)
		itest.Eventually(t, 10*time.Second, "every client reads the round's version", func() bool {
			for i, b := range vals {
				v, err := b.Get()
				if err != nil || v.Version != st.Version {
					return false
				}
				prev[i] = v
			}
			return true
		})
		won := make([]bool, clients)
		errs := make([]error, clients)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, b := range vals {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				won[i], errs[i] = b.TrySet(ctx, prev[i], fmt.Appendf(nil, "round %d client %d", round, i))
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for i := range vals {
			require.NoError(t, errs[i])
			if won[i] {
				require.Equal(t, -1, winner, "round %d: two winners", round)
				winner = i
			}
		}
		require.NotEqual(t, -1, winner, "round %d: no winner", round)
		data, after, err := raw.Get(ctx, "/race")
		require.NoError(t, err)
		require.Equal(t, st.Version+1, after.Version)
		require.Equal(t, fmt.Sprintf("round %d client %d", round, winner), string(data))
		for i, b := range vals {
			require.Equal(t, after.Version, value(t, b).Version, "round %d, client %d: Get right after TrySet", round, i)
		}
	}
}

// TestTrySetAcrossRecreate: a reading taken before the node was deleted
// and made again (its version starts over at 0, as the reading's) cannot
// overwrite the new node once the value has read it: ZooKeeper's version
// alone would let it.
func TestTrySetAcrossRecreate(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	raw := itest.Connect(t, one, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 30*time.Second)
	b := startBytes(t, itest.Connect(t, one, itest.Opts{NS: ns}), "/v", []byte("old"))
	old := value(t, b)
	require.Zero(t, old.Version)
	require.NoError(t, raw.Delete(ctx, "/v", -1))
	_, err := raw.Create(ctx, "/v", []byte("new"), zk.FlagPersistent)
	require.NoError(t, err)
	itest.Eventually(t, 10*time.Second, "the new node read", func() bool {
		v, err := b.Get()
		return err == nil && string(v.Data) == "new"
	})
	require.Zero(t, value(t, b).Version, "the new node starts at version 0 too")
	ok, err := b.TrySet(ctx, old, []byte("overwrite"))
	require.NoError(t, err)
	require.False(t, ok)
	data, _, err := raw.Get(ctx, "/v")
	require.NoError(t, err)
	require.Equal(t, "new", string(data))
}

// TestStartGoesOnInTheBackground: a Bytes and a Count started while their
// client is cut off return their context's error, say ErrNotStarted, and
// once the link is back they read the node (made with their seed) and
// deliver later changes; Close ends them either way.
func TestStartGoesOnInTheBackground(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, one, itest.Opts{NS: ns, Link: link, Timeout: 10 * time.Second})
	other := itest.Connect(t, one, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, time.Minute)
	b, err := shared.NewBytes(c, "/bg/value", []byte("seed"))
	require.NoError(t, err)
	defer b.Close()
	cnt, err := shared.NewCount(c, "/bg/count", 7)
	require.NoError(t, err)
	defer cnt.Close()
	values, stopValues := b.Events()
	defer stopValues()
	counts, stopCounts := cnt.Events()
	defer stopCounts()

	link.Cut()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, b.Start(short), context.DeadlineExceeded)
	require.ErrorIs(t, cnt.Start(short), context.DeadlineExceeded)
	_, err = b.Get()
	require.ErrorIs(t, err, zkrecipes.ErrNotStarted)
	_, err = cnt.Get()
	require.ErrorIs(t, err, zkrecipes.ErrNotStarted)
	require.ErrorIs(t, b.Start(ctx), zkrecipes.ErrAlreadyStarted)
	require.ErrorIs(t, cnt.Start(ctx), zkrecipes.ErrAlreadyStarted)

	link.Restore()
	itest.Eventually(t, 20*time.Second, "both read their node in the background", func() bool {
		v, err1 := b.Get()
		n, err2 := cnt.Get()
		return err1 == nil && err2 == nil && string(v.Data) == "seed" && n.Count == 7
	})
	_, err = other.Set(ctx, "/bg/value", []byte("changed"), -1)
	require.NoError(t, err)
	_, err = other.Set(ctx, "/bg/count", []byte{0, 0, 0, 8}, -1)
	require.NoError(t, err)
	require.Equal(t, "changed", string(itest.Await(t, values, 10*time.Second, "the value's change").Data))
	require.Equal(t, int32(8), itest.Await(t, counts, 10*time.Second, "the count's change").Count)
	require.NoError(t, b.Close())
	require.NoError(t, cnt.Close())
	_, ok := <-values
	require.False(t, ok)
	_, ok = <-counts
	require.False(t, ok)
}

// TestEnsemble: the scenarios of TestMultiClients and TestTrySetValueRace
// on a 3-server ensemble, the clients spread over its servers.
func TestEnsemble(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t, zktest.WithServers(3))
	multiClients(t, cl, 30)
	trySetRace(t, cl, 10)
}
