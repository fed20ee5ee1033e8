package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

const viewFields = `JSON fields (stable): path, kind (mutex|rwlock|semaphore|latch|count|none),
nodes[] in queue order, acquirers[] (a semaphore's locks/ queue), limit (a
semaphore's limit written on its node), count {value, version}, foreign[]
(children that are no contender), children (the number of children of a
node of kind none). Each node: name, role (holder|waiter|reader|
writer|lease|leader|participant), mode (read|write, rwlock only), session (hex),
created (RFC 3339), age_seconds, data (text, or 0x-hex), token (czxid, the
fencing token), watches (the node a waiter waits for).`

func newShow(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show PATH",
		Short: "Show a recipe's queue in order: holder, waiters, leases, leader, count",
		Long: `show prints the nodes of the lock, election, semaphore or shared count at
PATH in queue order: role, session id, age, data (host or participant id),
fencing token (czxid) and the node each waiter watches.

` + viewFields,
		Example: `  zkr show /locks/nightly
  zkr show /licences/reports --json
  zkr --namespace myapp show /limits/reports`,
		Args: argsOrUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := args[0]
			if err := checkPath(p); err != nil {
				return err
			}
			ctx, stop := signalContext()
			defer stop()
			c, err := g.connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			rctx, cancel := context.WithTimeout(ctx, g.timeout)
			defer cancel()
			v, err := inspect(rctx, c, p)
			if err != nil {
				return opErr(p, err)
			}
			if g.json {
				return writeJSON(cmd.OutOrStdout(), v)
			}
			writeView(cmd.OutOrStdout(), v)
			return nil
		},
	}
	addJSON(cmd, g)
	return cmd
}

// signalContext is cancelled on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
