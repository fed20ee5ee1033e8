package sharedit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// startCount makes and starts a count on c, closed at cleanup.
func startCount(t testing.TB, c *client.Client, path string, seed int32) *shared.Count {
	t.Helper()
	cnt, err := shared.NewCount(c, path, seed)
	require.NoError(t, err)
	require.NoError(t, cnt.Start(itest.Ctx(t, 30*time.Second)))
	t.Cleanup(func() { _ = cnt.Close() })
	return cnt
}

// startBytes makes and starts a shared value on c, closed at cleanup.
func startBytes(t testing.TB, c *client.Client, path string, seed []byte) *shared.Bytes {
	t.Helper()
	b, err := shared.NewBytes(c, path, seed)
	require.NoError(t, err)
	require.NoError(t, b.Start(itest.Ctx(t, 30*time.Second)))
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// count reads cnt, failing the test on error.
func count(t testing.TB, cnt *shared.Count) shared.Value {
	t.Helper()
	v, err := cnt.Get()
	require.NoError(t, err)
	return v
}

// value reads b, failing the test on error.
func value(t testing.TB, b *shared.Bytes) shared.Versioned {
	t.Helper()
	v, err := b.Get()
	require.NoError(t, err)
	return v
}
