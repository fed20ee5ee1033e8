package integration

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// rwNodeName is the name of a read/write lock node as Curator writes it.
var rwNodeName = regexp.MustCompile(
	`^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-(__READ__|__WRIT__)(\d{10})$`)

// TestRWLockWireLayout checks what a Curator process sharing the lock would
// see: protected names with Curator's markers, EPHEMERAL nodes of the right
// sessions, the downgrade node as a plain EPHEMERAL at its writer's sequence
// number, and queue order equal to sequence order.
func TestRWLockWireLayout(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a, ac := rwHandle(t, clientOpts{ns: ns})
	b, bc := rwHandle(t, clientOpts{ns: ns})
	c, cc := rwHandle(t, clientOpts{ns: ns})
	dc := connect(t, clientOpts{ns: ns})
	d, err := rwlock.New(dc, rwDir, rwlock.WithData([]byte("node-D")))
	require.NoError(t, err)

	require.NoError(t, a.Lock(ctx))
	require.NoError(t, a.RLock(rwUnderWrite(t, ctx, a))) // downgrade node
	bGot := rwAsync(ctx, b.RLock)
	waitChildren(t, obs, rwDir, 3)
	cGot := rwAsync(ctx, c.Lock)
	waitChildren(t, obs, rwDir, 4)
	dGot := rwAsync(ctx, d.RLock)
	kids := waitChildren(t, obs, rwDir, 5)

	owners := map[string]int64{}
	seq := map[string]string{}
	for _, k := range kids {
		m := rwNodeName.FindStringSubmatch(k)
		require.NotNil(t, m, "node name %q", k)
		seq[k] = m[2]
		_, st, err := obs.Get(ctx, path.Join(rwDir, k))
		require.NoError(t, err)
		require.NotZero(t, st.EphemeralOwner, "%s is not ephemeral", k)
		owners[k] = st.EphemeralOwner
	}

	aWrite, aRead := path.Base(a.WriteLock().Node()), path.Base(a.ReadLock().Node())
	require.True(t, strings.HasSuffix(aRead, rwlock.ReadLockName+seq[aWrite]),
		"downgrade node %s carries writer %s's number", aRead, aWrite)
	require.Equal(t, ac.Session().ID(), owners[aWrite])
	require.Equal(t, ac.Session().ID(), owners[aRead])

	// Sequence numbers: the downgrade node shares its writer's; every
	// sequential node has its own, in order of creation.
	var seqs []string
	for _, k := range kids {
		if k != aRead {
			seqs = append(seqs, seq[k])
		}
	}
	slices.Sort(seqs)
	require.Len(t, slices.Compact(slices.Clone(seqs)), 4, "sequential nodes share a number: %v", kids)

	bNode, cNode := rwNodeOf(t, kids, bc.Session().ID(), owners), rwNodeOf(t, kids, cc.Session().ID(), owners)
	require.Less(t, seq[aWrite], seq[bNode])
	require.Less(t, seq[bNode], seq[cNode])
	require.Contains(t, bNode, rwlock.ReadLockName)
	require.Contains(t, cNode, rwlock.WriteLockName)

	// lockq.Sorted orders by sequence number (the downgrade node beside its writer).
	sorted := lockq.Sorted(kids, []string{rwlock.ReadLockName, rwlock.WriteLockName})
	require.Len(t, sorted, 5)
	var sortedNames []string
	for i, n := range sorted {
		sortedNames = append(sortedNames, n.Name)
		require.Equal(t, seq[n.Name], n.Key, "sort key of %s", n.Name)
		if i > 0 {
			require.LessOrEqual(t, sorted[i-1].Key, n.Key, "order %v", sortedNames)
		}
	}
	bySeq := slices.Clone(kids)
	slices.SortStableFunc(bySeq, func(x, y string) int {
		if c := strings.Compare(seq[x], seq[y]); c != 0 {
			return c
		}
		return strings.Compare(x, y)
	})
	require.Equal(t, bySeq, sortedNames)

	// Participants agree, with markers and data.
	parts, err := a.Participants(ctx)
	require.NoError(t, err)
	require.Len(t, parts, 5)
	for i, p := range parts {
		require.Equal(t, sortedNames[i], p.Name)
		want := rwlock.WriteLockName
		if strings.Contains(p.Name, rwlock.ReadLockName) {
			want = rwlock.ReadLockName
		}
		require.Equal(t, want, p.Marker)
		wantData := lockq.DefaultData() // Curator's default: the host's address
		if owners[p.Name] == dc.Session().ID() {
			wantData = []byte("node-D")
		}
		require.Equal(t, string(wantData), string(p.Data), "data of %s", p.Name)
	}
	require.NotEmpty(t, lockq.DefaultData())

	// The directory is a plain node for clients to see (a CONTAINER shows
	// ephemeralOwner 0 like a persistent one); TestRWLockNoOrphans checks
	// that the server reaps it once empty.
	_, dirStat, err := obs.Get(ctx, rwDir)
	require.NoError(t, err)
	require.Zero(t, dirStat.EphemeralOwner, "lock directory is ephemeral")

	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, await(t, bGot, rwPatience, "reader b"))
	require.NoError(t, a.RUnlock(ctx))
	require.NoError(t, b.RUnlock(ctx))
	require.NoError(t, await(t, cGot, rwPatience, "writer c"))
	require.NoError(t, c.Unlock(ctx))
	require.NoError(t, await(t, dGot, rwPatience, "reader d"))
	require.NoError(t, d.RUnlock(ctx))
}

// rwNodeOf returns the child owned by session sid.
func rwNodeOf(t *testing.T, kids []string, sid int64, owners map[string]int64) string {
	t.Helper()
	for _, k := range kids {
		if owners[k] == sid {
			return k
		}
	}
	t.Fatalf("no node of session 0x%x in %v", sid, kids)
	return ""
}
