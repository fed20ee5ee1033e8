package fencingit

import (
	"context"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/integration/lockdebate"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestRedisFailover kills a Redis primary before the lock key reaches its
// replica, promotes the replica and lets a second client take the same
// lock: two holders, in at least one round (every round, by construction;
// the count is logged). The control rounds let the key replicate first
// (WAIT 1): then the promoted replica keeps A's lock and refuses B, which
// shows that the two holders come from the lost replication, not from a
// broken setup.
func TestRedisFailover(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const rounds = 5
	lost, err := lockdebate.PlayRedisFailover(ctx, lockdebate.RedisFailoverConfig{Rounds: rounds})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: two holders in %d of %d rounds, A's key kept in %d", lost.Scenario, lost.TwoHolders, lost.Rounds, lost.Kept)
	if lost.Rounds != rounds || lost.TwoHolders < 1 {
		t.Errorf("two holders in %d of %d rounds, want at least 1 of %d", lost.TwoHolders, lost.Rounds, rounds)
	}
	if lost.Kept != 0 {
		t.Errorf("the promoted replica had A's key in %d rounds, though its replication was stalled before the SET", lost.Kept)
	}

	control, err := lockdebate.PlayRedisFailover(ctx, lockdebate.RedisFailoverConfig{Rounds: 2, Replicated: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: two holders in %d of %d rounds, A's key kept in %d", control.Scenario, control.TwoHolders, control.Rounds, control.Kept)
	if control.TwoHolders != 0 || control.Kept != control.Rounds {
		t.Errorf("control: two holders in %d and A's key kept in %d of %d rounds, want 0 and all", control.TwoHolders, control.Kept, control.Rounds)
	}
}

// TestZKFailover kills the leader of a 3-server ensemble right after a
// client got the mutex; a second client asks for it at once. It must not get
// it while the first holds it (its node exists and it has not begun to
// release, or its Lost() has not closed), in any round.
func TestZKFailover(t *testing.T) {
	t.Parallel()
	ensemble := zktest.ForTest(t, zktest.WithServers(3))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const rounds = 3
	run := lockdebate.NewRun()
	got, err := lockdebate.PlayZKFailover(ctx, ensemble, lockdebate.ZKFailoverConfig{Rounds: rounds, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: two holders in %d of %d rounds, A's lock node outlived the leader in %d", got.Scenario, got.TwoHolders, got.Rounds, got.Kept)
	if got.Rounds != rounds || got.TwoHolders != 0 {
		t.Errorf("two holders in %d of %d rounds, want 0 of %d", got.TwoHolders, got.Rounds, rounds)
	}
}
