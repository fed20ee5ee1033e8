package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	pathpkg "path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// envToken is the environment variable a child gets its fencing token in;
// envTokens the one it gets every lock's token in, for several paths.
const (
	envToken  = "ZKR_FENCING_TOKEN"
	envTokens = "ZKR_FENCING_TOKENS"
)

// tokenEnv is the child's token variables.
func tokenEnv(tokens ...int64) []string {
	env := []string{envToken + "=" + strconv.FormatInt(tokens[0], 10)}
	if len(tokens) > 1 {
		all := make([]string, len(tokens))
		for i, t := range tokens {
			all[i] = strconv.FormatInt(t, 10)
		}
		env = append(env, envTokens+"="+strings.Join(all, " "))
	}
	return env
}

// childResult is how a child ended.
type childResult struct {
	code int  // its exit status (128+signal when killed by a signal)
	lost bool // the holding was lost while it ran
}

// runChild runs argv with env added to its environment (the tokens), and
// SIGTERMs it when lost closes or stop is cancelled (SIGKILL after grace).
// It returns once the child has ended.
func runChild(stop context.Context, lost <-chan struct{}, argv []string, env []string, grace time.Duration) (childResult, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	// Its own process group, so that a loss signals everything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return childResult{}, fail(127, "cannot start the command: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var res childResult
	var kill <-chan time.Time
	group := -cmd.Process.Pid
	terminate := func() {
		if kill == nil {
			_ = syscall.Kill(group, syscall.SIGTERM)
			kill = time.NewTimer(grace).C
		}
	}
	stopped := stop.Done()
	for {
		select {
		case err := <-done:
			res.code = exitStatus(cmd, err)
			if res.lost {
				// What it left running works without the lock: end it now.
				_ = syscall.Kill(group, syscall.SIGKILL)
			}
			return res, nil
		case <-lost:
			lost, res.lost = nil, true
			terminate()
		case <-stopped:
			stopped = nil
			terminate()
		case <-kill:
			_ = syscall.Kill(group, syscall.SIGKILL)
			kill = nil
		}
	}
}

// exitStatus is a shell's view of how the child ended.
func exitStatus(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return 128 + int(st.Signal())
		}
		return cmd.ProcessState.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

// finish turns a child's end into zkr's exit.
func finish(res childResult, what string) error {
	if res.lost {
		code := res.code
		if code == 0 {
			code = exitNotFound
		}
		fmt.Fprintf(os.Stderr, "zkr: %s was lost while the command ran; it was terminated\n", what)
		return &exitError{code: code}
	}
	if res.code != 0 {
		return &exitError{code: res.code}
	}
	return nil
}

func splitCommand(cmd *cobra.Command, args []string) (string, []string, error) {
	dash := cmd.ArgsLenAtDash()
	if len(args) < 2 || dash != 1 {
		return "", nil, usageErr("usage: zkr %s PATH -- CMD [ARGS...]", cmd.Name())
	}
	if err := checkPath(args[0]); err != nil {
		return "", nil, err
	}
	return args[0], args[1:], nil
}

// splitPaths is splitCommand for a command that takes one path or more
// before the "--".
func splitPaths(cmd *cobra.Command, args []string) ([]string, []string, error) {
	dash := cmd.ArgsLenAtDash()
	if dash < 1 || len(args) <= dash {
		return nil, nil, usageErr("usage: zkr %s PATH [PATH...] -- CMD [ARGS...]", cmd.Name())
	}
	for _, p := range args[:dash] {
		if err := checkPath(p); err != nil {
			return nil, nil, err
		}
	}
	return args[:dash], args[dash:], nil
}

// lockHandle is what zkr lock holds: one mutex, or a multi-lock.
type lockHandle struct {
	lock, tryLock, unlock func(context.Context) error
	lost                  func() <-chan struct{}
	tokens                func(context.Context) ([]int64, error) // in the order the paths were given
}

func newLockHandle(c *client.Client, paths []string, opts []mutex.Option) (*lockHandle, error) {
	if len(paths) == 1 {
		m, err := mutex.New(c, paths[0], opts...)
		if err != nil {
			return nil, err
		}
		return &lockHandle{lock: m.Lock, tryLock: m.TryLock, unlock: m.Unlock, lost: m.Lost,
			tokens: func(ctx context.Context) ([]int64, error) {
				t, err := m.Token(ctx)
				return []int64{t}, err
			}}, nil
	}
	m, err := mutex.NewMulti(c, paths, opts...)
	if err != nil {
		return nil, err
	}
	return &lockHandle{lock: m.Lock, tryLock: m.TryLock, unlock: m.Unlock, lost: m.Lost,
		tokens: func(ctx context.Context) ([]int64, error) {
			out := make([]int64, len(paths))
			for i, p := range paths {
				t, err := m.Token(ctx, p)
				if err != nil {
					return nil, err
				}
				out[i] = t
			}
			return out, nil
		}}, nil
}

func newLock(g *globals) *cobra.Command {
	var grace time.Duration
	var try bool
	var wait time.Duration
	var data string
	cmd := &cobra.Command{
		Use:   "lock PATH [PATH...] -- CMD [ARGS...]",
		Short: "Run a command while holding the mutex at PATH (or the mutexes at several paths)",
		Long: `lock takes the mutex at PATH (recipes/mutex, Curator's InterProcessMutex;
node data: this host's address, or --data), then runs CMD with its fencing
token (the lock node's czxid) in ZKR_FENCING_TOKEN. With several paths it
takes all of their mutexes or none (mutex.Multi, Curator's
InterProcessMultiLock), in the order of their paths whatever the order given,
so that two zkr lock commands over the same paths never deadlock; the
command then gets every lock's token in ZKR_FENCING_TOKENS (space-separated,
in the order the paths were given) and the first one's in ZKR_FENCING_TOKEN.
The command's exit status is passed through. When a holding may be lost (the
connection is suspended, the session lost, a node deleted), the command gets
SIGTERM, and SIGKILL after --grace; zkr then exits with the command's status,
or 1 if that was 0. The command runs in its own process group, and these
signals go to the whole group (what is still running in it once the command
ended after a loss is killed). SIGINT/SIGTERM to zkr are passed on to the
group as SIGTERM. With --try, zkr exits 1 at once when another process holds
a lock; with --wait D, when it does not get them within D.`,
		Example: `  zkr lock /locks/nightly -- ./nightly.sh --full
  zkr lock --try --grace 30s /locks/backup -- sh -c 'backup --fence "$ZKR_FENCING_TOKEN"'
  zkr lock --wait 5m /locks/report -- ./report.sh
  zkr lock /accounts/17 /accounts/4 -- ./transfer 17 4 --fence "$ZKR_FENCING_TOKENS"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, argv, err := splitPaths(cmd, args)
			if err != nil {
				return err
			}
			if grace <= 0 {
				return usageErr("--grace must be positive")
			}
			what := strings.Join(paths, " ")
			ctx, stop := signalContext()
			defer stop()
			c, err := g.connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			var opts []mutex.Option
			if data != "" {
				opts = append(opts, mutex.WithData([]byte(data)))
			}
			m, err := newLockHandle(c, paths, opts)
			if err != nil {
				return usageErr("%v", err)
			}
			lctx, lcancel := ctx, context.CancelFunc(func() {})
			if wait > 0 {
				lctx, lcancel = context.WithTimeout(ctx, wait)
			}
			if try {
				err = m.tryLock(lctx)
			} else {
				err = m.lock(lctx)
			}
			lcancel()
			var le *zkrecipes.LockedError
			switch {
			case errors.As(err, &le):
				held := what
				if len(paths) > 1 && le.Node != "" {
					held = pathpkg.Dir(le.Node)
				}
				return fail(exitNotFound, "%s is held (by %s)", held, dash(decodeData(le.Data)))
			case err != nil && ctx.Err() == nil && lctx.Err() != nil:
				return fail(exitNotFound, "%s was not acquired within %v", what, wait)
			case err != nil && ctx.Err() != nil:
				return fail(exitNotFound, "interrupted while waiting for %s", what)
			case err != nil:
				return opErr(what, err)
			}
			defer func() {
				uctx, ucancel := context.WithTimeout(context.Background(), g.timeout)
				defer ucancel()
				_ = m.unlock(uctx) // else the nodes go with the session, closed next
			}()
			tokens, err := m.tokens(ctx)
			if err != nil {
				return fail(exitNotFound, "lock %s was lost before the command started", what)
			}
			res, err := runChild(ctx, m.lost(), argv, tokenEnv(tokens...), grace)
			if err != nil {
				return err
			}
			return finish(res, "the lock "+what)
		},
	}
	cmd.Flags().DurationVar(&grace, "grace", 10*time.Second, "time between SIGTERM and SIGKILL when the lock is lost")
	cmd.Flags().BoolVar(&try, "try", false, "exit 1 at once when the lock is held")
	cmd.Flags().DurationVar(&wait, "wait", 0, "exit 1 when the lock is not acquired within this time (0: wait as long as it takes)")
	cmd.Flags().StringVar(&data, "data", "", "lock node data (default: this host's address, as Curator)")
	return cmd
}

func newElect(g *globals) *cobra.Command {
	var grace time.Duration
	var id string
	cmd := &cobra.Command{
		Use:   "elect PATH -- CMD [ARGS...]",
		Short: "Run a command while leading the election at PATH",
		Long: `elect campaigns in the election at PATH (election.Run, Curator's
LeaderSelector: "lock-" nodes whose data is the participant id), and once it
leads runs CMD once with the term's fencing token in ZKR_FENCING_TOKEN. The
command's exit status is passed through. When leadership may be gone, the
command gets SIGTERM, and SIGKILL after --grace; zkr then exits with the
command's status, or 1 if that was 0. The node is deleted only after the
command has ended, so the next leader starts after it.`,
		Example: `  zkr elect /elections/scheduler -- ./scheduler
  zkr elect --id "$(hostname)-a" /elections/scheduler -- ./scheduler --serve`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, argv, err := splitCommand(cmd, args)
			if err != nil {
				return err
			}
			if grace <= 0 {
				return usageErr("--grace must be positive")
			}
			if id == "" {
				id = string(lockq.DefaultData())
				if h, err := os.Hostname(); err == nil && h != "" {
					id = h
				}
			}
			ctx, stop := signalContext()
			defer stop()
			c, err := g.connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			var res childResult
			var childErr error
			led := false
			err = election.Run(ctx, c, p, func(tctx context.Context, t *election.Term) error {
				led = true
				res, childErr = runChild(ctx, tctx.Done(), argv, tokenEnv(t.Token()), grace)
				return nil
			}, election.WithRunOnce(), election.WithID(id))
			if childErr != nil {
				return childErr
			}
			if ctx.Err() != nil {
				res.lost = false // the term ended because zkr was interrupted
			}
			if !led {
				if ctx.Err() != nil {
					return fail(exitNotFound, "interrupted while waiting to lead %s", p)
				}
				return opErr(p, err)
			}
			return finish(res, "leadership of "+p)
		},
	}
	cmd.Flags().DurationVar(&grace, "grace", 10*time.Second, "time between SIGTERM and SIGKILL when leadership is lost")
	cmd.Flags().StringVar(&id, "id", "", "participant id written in the node (default: the host name)")
	return cmd
}
