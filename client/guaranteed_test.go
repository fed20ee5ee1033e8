package client

import (
	"context"
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"
)

// TestFirstTryCutNamesTheCause: a first delete ended because the connection
// stayed down says so, not "context canceled", which no caller did; a
// request's own error other than the cancellation stays beside it.
func TestFirstTryCutNamesTheCause(t *testing.T) {
	err := firstTryCut(errNoConnection, context.Canceled)
	if err != errNoConnection {
		t.Fatalf("cut short by the connection: %v, want %v alone", err, errNoConnection)
	}
	if got, want := err.Error(), "zkrecipes: no connection to ZooKeeper for 1s"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
	err = firstTryCut(errSessionEnded, zk.ErrConnectionClosed)
	if !errors.Is(err, errSessionEnded) || errors.Is(err, context.Canceled) {
		t.Fatalf("cut short by the session's end: %v", err)
	}
}
