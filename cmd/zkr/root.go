package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// globals are the flags every command takes.
type globals struct {
	zk             string
	namespace      string
	timeout        time.Duration
	sessionTimeout time.Duration
	json           bool
	verbose        bool
	tls            tlsFlags
}

const rootExample = `  export ZKR_ZK=zk1:2181,zk2:2181,zk3:2181
  export ZKR_AUTH=svc:secret            # digest auth, never on the command line
  zkr ls /locks
  zkr show /locks/nightly
  zkr lock /locks/nightly -- ./nightly.sh
  zkr --zk zk1:2281 --tls-ca ca.pem --tls-cert me.pem --tls-key me-key.pem ls /locks`

func newRoot() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "zkr",
		Short: "Inspect and operate zkrecipes (and Curator) locks, elections, semaphores, counts, groups, services and queues",
		Long: `zkr shows who holds a lock, who waits, who leads and who has leases on a
ZooKeeper ensemble, the members of a group, the instances of a service and
what a queue holds, prints a subtree's changes as they happen, and runs commands under a lock or
while leading.

Exit codes: 0 ok; 1 not found, no holder, or problems found (doctor);
2 usage (bad flag or path); 3 cannot connect. A command run by lock or elect
passes its own exit status through.

Environment: ZKR_ZK (servers, as --zk), ZKR_AUTH (user:password, digest auth).`,
		Example:       rootExample,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	pf := root.PersistentFlags()
	pf.StringVar(&g.zk, "zk", "", "ZooKeeper servers host:port,... (default $ZKR_ZK, else 127.0.0.1:2181)")
	pf.StringVar(&g.namespace, "namespace", "", "root every path under this namespace (client.WithNamespace)")
	pf.DurationVar(&g.timeout, "timeout", 10*time.Second, "time to connect, and for a read command's reads")
	pf.DurationVar(&g.sessionTimeout, "session-timeout", 10*time.Second, "session timeout asked of the server")
	pf.BoolVar(&g.verbose, "verbose", false, "log the client's connection state changes to stderr")
	g.tls.add(root)
	root.AddCommand(
		newShow(g), newLs(g), newLock(g), newElect(g),
		newCount(g), newRevoke(g), newDoctor(g), newWatch(g), newMembers(g), newServices(g), newQueueCmd(g),
	)
	return root
}

// addJSON adds --json to a read command.
func addJSON(cmd *cobra.Command, g *globals) {
	cmd.Flags().BoolVar(&g.json, "json", false, "print JSON (field names: see this command's help)")
}

// servers returns the server list from --zk, else ZKR_ZK.
func (g *globals) servers() []string {
	s := g.zk
	if s == "" {
		s = os.Getenv("ZKR_ZK")
	}
	if s == "" {
		s = "127.0.0.1:2181"
	}
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// connect starts a client within --timeout; failures exit 3 (2 for bad
// settings).
func (g *globals) connect(ctx context.Context) (*client.Client, error) {
	if g.timeout <= 0 {
		return nil, usageErr("--timeout must be positive")
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if g.verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	opts := []client.Option{
		client.WithServers(g.servers()...),
		client.WithSessionTimeout(g.sessionTimeout),
		client.WithLogger(logger),
	}
	if g.namespace != "" {
		opts = append(opts, client.WithNamespace(g.namespace))
	}
	tlsCfg, err := g.tls.config()
	if err != nil {
		return nil, err
	}
	if tlsCfg != nil {
		opts = append(opts, client.WithTLS(tlsCfg))
	}
	if auth := os.Getenv("ZKR_AUTH"); auth != "" {
		user, pass, ok := strings.Cut(auth, ":")
		if !ok || user == "" {
			return nil, usageErr("ZKR_AUTH must be user:password")
		}
		opts = append(opts, client.WithDigestAuth(user, pass))
	}
	c, err := client.New(opts...)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	sctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	if err := c.Start(sctx); err != nil {
		_ = c.Close()
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil, fail(exitConnect, "interrupted while connecting to %s", strings.Join(g.servers(), ","))
		}
		var te *client.TLSError
		if errors.As(err, &te) {
			return nil, fail(exitConnect, "cannot connect to %s: %v", strings.Join(g.servers(), ","), te)
		}
		return nil, fail(exitConnect, "cannot connect to %s within %v", strings.Join(g.servers(), ","), g.timeout)
	}
	return c, nil
}

// checkPath validates a path argument (exit 2 when ZooKeeper would refuse it).
func checkPath(p string) error {
	if err := client.ValidatePath(p); err != nil {
		return usageErr("bad path %q: %v", p, unwrapPathReason(err))
	}
	return nil
}

func unwrapPathReason(err error) string {
	var pe *client.PathError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	return err.Error()
}

// argsOrUsage is cobra.Args that turns argument errors into usage errors.
func argsOrUsage(a cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := a(cmd, args); err != nil {
			return usageErr("%v (see zkr %s --help)", err, cmd.Name())
		}
		return nil
	}
}

// opErr turns an error of a request into an exit error: NoNode is 1, a
// connection that could not carry the request is 3, anything else 1.
func opErr(what string, err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	if isNoNode(err) {
		return fail(exitNotFound, "%s: no such node", what)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fail(exitConnect, "%s: no answer in time (connection lost?)", what)
	}
	return fail(exitNotFound, "%s: %v", what, err)
}

// clientAPI is the client a command body gets.
type clientAPI = *client.Client

// with connects, runs f with a context bounded by --timeout (and cancelled on
// SIGINT/SIGTERM), and closes the client.
func (g *globals) with(f func(ctx context.Context, c clientAPI) error) error {
	ctx, stop := signalContext()
	defer stop()
	c, err := g.connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	rctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	return f(rctx, c)
}
