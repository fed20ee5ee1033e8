package zktest

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestServersOrThrowawayGivenServers(t *testing.T) {
	for _, tc := range []struct {
		flag string
		want []string
	}{
		{"127.0.0.1:2181", []string{"127.0.0.1:2181"}},
		{" a:1 , b:2,,c:3 ", []string{"a:1", "b:2", "c:3"}},
	} {
		// A backend that cannot be would fail any start: none may happen.
		servers, cluster, err := ServersOrThrowaway(context.Background(), tc.flag, WithBackend("none"))
		if err != nil || cluster != nil || !slices.Equal(servers, tc.want) {
			t.Errorf("ServersOrThrowaway(%q) = %q, %v, %v; want %q, nil, nil", tc.flag, servers, cluster, err, tc.want)
		}
		if err := cluster.Close(); err != nil {
			t.Errorf("Close on the nil cluster: %v", err)
		}
	}
}

func TestServersOrThrowawayNamesNoServer(t *testing.T) {
	for _, flag := range []string{",", " ", " , ,"} {
		servers, cluster, err := ServersOrThrowaway(context.Background(), flag, WithBackend("none"))
		if !errors.Is(err, ErrNoServers) || servers != nil || cluster != nil {
			t.Errorf("ServersOrThrowaway(%q) = %q, %v, %v; want an error wrapping ErrNoServers", flag, servers, cluster, err)
		}
	}
}

func TestServersOrThrowawayStartError(t *testing.T) {
	servers, cluster, err := ServersOrThrowaway(context.Background(), "", WithBackend("none"))
	if err == nil || servers != nil || cluster != nil {
		t.Fatalf("start on an unknown backend = %q, %v, %v; want an error", servers, cluster, err)
	}
}
