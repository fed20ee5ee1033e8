package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// zkrEnv runs the binary with exactly args and env added to the test's own.
func zkrEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(zkrBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := runWithin(cmd, 90*time.Second)
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

func TestServersAndDigestAuthFromTheEnvironment(t *testing.T) {
	ns := namespace(t)
	c, err := client.New(client.WithServers(shared.Addrs()...), client.WithNamespace(ns),
		client.WithDigestAuth("svc", "s3cret"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Close() })
	_, err = c.Create(ctx, "/secret", encodeCount(5), 0, client.WithParents()) // "creator all": only svc may read it
	require.NoError(t, err)
	_, _, err = c.Exists(ctx, "/secret")
	require.NoError(t, err)

	zkEnv := "ZKR_ZK=" + shared.ConnectString()
	r := zkrEnv(t, []string{zkEnv}, "--namespace", ns, "count", "get", "/secret")
	requireOneLineError(t, r, 1) // not authenticated
	r = zkrEnv(t, []string{zkEnv, "ZKR_AUTH=svc:s3cret"}, "--namespace", ns, "count", "get", "/secret")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "5\n", r.stdout)
	requireOneLineError(t, zkrEnv(t, []string{zkEnv, "ZKR_AUTH=nocolon"}, "--namespace", ns, "count", "get", "/secret"), 2)
}
