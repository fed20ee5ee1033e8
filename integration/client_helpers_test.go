package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// Helpers shared by the client_*_test.go files; their names start with
// "cl" so that they cannot clash with other files of the package.

// clNext returns the next state change, failing the test when none comes
// within d or the subscription is closed.
func clNext(t testing.TB, ch <-chan client.StateChange, d time.Duration) client.StateChange {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the subscription was closed while an event was expected")
		return ev
	case <-timer.C:
		require.FailNowf(t, "no state change", "nothing within %v", d)
		return client.StateChange{}
	}
}

// clExpect is clNext that also requires the state and session id.
func clExpect(t testing.TB, ch <-chan client.StateChange, want client.State, sid int64, d time.Duration) client.StateChange {
	t.Helper()
	ev := clNext(t, ch, d)
	require.Equal(t, want, ev.State, "unexpected transition: %s", clDescribe(ev))
	require.Equal(t, sid, ev.SessionID, "wrong session in %s", clDescribe(ev))
	return ev
}

// clDrain reads every event that arrives until none has come for quiet.
func clDrain(ch <-chan client.StateChange, quiet time.Duration) []client.StateChange {
	var out []client.StateChange
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-time.After(quiet):
			return out
		}
	}
}

func clDescribe(ev client.StateChange) string {
	return fmt.Sprintf("%s(0x%x)@%s", ev.State, uint64(ev.SessionID), ev.Time.Format("15:04:05.000"))
}

func clDescribeAll(evs []client.StateChange) string {
	s := make([]string, len(evs))
	for i, ev := range evs {
		s[i] = clDescribe(ev)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// clRequireFlaps requires that evs is one or more Suspended→Reconnected pairs of
// session sid and nothing else: the connection dropped and came back, maybe
// more than once, and the session was never lost.
func clRequireFlaps(t testing.TB, evs []client.StateChange, sid int64) {
	t.Helper()
	require.NotEmpty(t, evs, "no state change at all")
	require.Zero(t, len(evs)%2, "not Suspended/Reconnected pairs: %s", clDescribeAll(evs))
	for i, ev := range evs {
		want := client.StateSuspended
		if i%2 == 1 {
			want = client.StateReconnected
		}
		require.Equal(t, want, ev.State, "event %d of %s", i, clDescribeAll(evs))
		require.Equal(t, sid, ev.SessionID, "event %d of %s", i, clDescribeAll(evs))
	}
}

// clInspect opens a short-lived observer client on cl (no namespace), runs fn
// with it and closes it: a view of the tree that does not depend on the
// client under test, nor on any session that a fault may have disturbed.
func clInspect(t testing.TB, cl *zktest.Cluster, fn func(ctx context.Context, obs *client.Client)) {
	t.Helper()
	if cl == nil {
		cl = shared
	}
	obs, err := client.New(client.WithServers(cl.Addrs()...), client.WithSessionTimeout(10*time.Second))
	require.NoError(t, err)
	defer obs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.NoError(t, obs.Start(ctx))
	fn(ctx, obs)
}

// clOwner reports whether the absolute path exists, as seen by a
// fresh observer, and its ephemeralOwner.
func clOwner(t testing.TB, cl *zktest.Cluster, path string) (ok bool, owner int64) {
	t.Helper()
	clInspect(t, cl, func(ctx context.Context, obs *client.Client) {
		found, st, err := obs.Exists(ctx, path)
		require.NoError(t, err)
		ok = found
		if found {
			owner = st.EphemeralOwner
		}
	})
	return ok, owner
}
