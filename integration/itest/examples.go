package itest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// exampleServers are the addresses of the server RunExamples started.
var exampleServers []string

// RunExamples is the TestMain body of a package of godoc examples: one
// throwaway server for the whole package (see zktest.RunMain: never skipped), with
// the clients' connection-state logs quieted to warnings, since they would
// mix with the examples' output. ConnectExample connects to it.
func RunExamples(m *testing.M, opts ...zktest.Option) {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	zktest.RunMain(m, func(c *zktest.Cluster) { exampleServers = c.Addrs() }, opts...)
}

// ConnectExample starts a client with a session of its own (10 s timeout) on
// the server RunExamples started: in an example, it stands for one process.
func ConnectExample(ctx context.Context) (*client.Client, error) {
	c, err := client.New(client.WithServers(exampleServers...), client.WithSessionTimeout(10*time.Second))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// ExampleServers are the client addresses of the server RunExamples
// started, for an example that makes its own client.
func ExampleServers() []string { return append([]string(nil), exampleServers...) }

// CheckRejectsFlags is the bad-flags test every example program shares:
// run (the program's main, minus os.Exit) must fail on each argument list
// of bad, and print nothing before it fails.
func CheckRejectsFlags(t testing.TB, run func(ctx context.Context, args []string, stdout io.Writer) error, bad ...[]string) {
	t.Helper()
	for _, args := range bad {
		var out bytes.Buffer
		if err := run(context.Background(), args, &out); err == nil {
			t.Errorf("run %q: no error", args)
		}
		if out.Len() != 0 {
			t.Errorf("run %q printed %q before failing on flags", args, out.String())
		}
	}
}
