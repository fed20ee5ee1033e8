package zktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrNoServers reports a server list (a -zk flag's value) that is not empty
// but names no server, such as "," or " ".
var ErrNoServers = errors.New("zktest: server list names no server")

// parseServers splits a comma-separated "host:port,..." list, as a -zk flag
// takes it, trimming blanks and dropping empty items. An empty list gives
// nil; a list that is not empty but names no server gives an error wrapping
// ErrNoServers.
func parseServers(list string) ([]string, error) {
	var servers []string
	for _, a := range strings.Split(list, ",") {
		if a = strings.TrimSpace(a); a != "" {
			servers = append(servers, a)
		}
	}
	if list != "" && len(servers) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrNoServers, list)
	}
	return servers, nil
}

// ServersOrThrowaway is the startup of a command that takes a -zk flag: it
// returns the servers zkFlag names (a comma-separated "host:port,..." list;
// blanks and empty items are dropped) and a nil cluster, or, when zkFlag is
// empty, starts a throwaway server with opts (standalone unless they say
// otherwise; bounded by ctx and by 3 minutes) and returns its addresses and
// the cluster, for the caller to describe and Close. Close on the nil cluster
// does nothing, so a caller may always defer cluster.Close(). A zkFlag that
// is not empty but names no server, such as ",", gives an error wrapping
// ErrNoServers, before anything starts.
func ServersOrThrowaway(ctx context.Context, zkFlag string, opts ...Option) (servers []string, cluster *Cluster, err error) {
	servers, err = parseServers(zkFlag)
	if err != nil || len(servers) > 0 {
		return servers, nil, err
	}
	ctx, cancel := context.WithTimeout(orBackground(ctx), forTestStartTimeout)
	defer cancel()
	cluster, err = Start(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("zktest: start a throwaway ZooKeeper (or name servers with -zk): %w", err)
	}
	return cluster.Addrs(), cluster, nil
}
