package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"
)

func newWatch(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch PATH",
		Short: "Print the show view of PATH again on every change, until Ctrl-C",
		Long: `watch prints the view of zkr show, then again each time the recipe's
children (or a count's value) change, until interrupted. With --json, one
compact JSON view (the fields of zkr show --json) per line.`,
		Example: `  zkr watch /locks/nightly
  zkr watch /licences/reports --json | jq -c '.nodes | length'`,
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
			out := cmd.OutOrStdout()
			for ctx.Err() == nil {
				wctx, cancel := context.WithTimeout(ctx, g.timeout)
				events, err := watchOnce(wctx, c, p, func(v *View) {
					if g.json {
						b, _ := json.Marshal(v)
						fmt.Fprintln(out, string(b))
						return
					}
					fmt.Fprintf(out, "--- %s\n", time.Now().UTC().Format(time.RFC3339))
					writeView(out, v)
				})
				cancel()
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					return opErr(p, err)
				}
				select {
				case <-ctx.Done():
				case <-events:
				}
			}
			return nil
		},
	}
	addJSON(cmd, g)
	return cmd
}

// watchOnce sets the watches, then reads and prints the view (so no change
// after the print is missed), and returns a channel that fires on the next
// change.
func watchOnce(ctx context.Context, c clientAPI, p string, print func(*View)) (<-chan struct{}, error) {
	fired := make(chan struct{}, 1)
	relay := func(ch <-chan zk.Event) {
		go func() {
			<-ch
			select {
			case fired <- struct{}{}:
			default:
			}
		}()
	}
	ok, _, ch, err := c.ExistsW(ctx, p)
	if err != nil {
		return nil, err
	}
	relay(ch)
	if !ok {
		fmt.Fprintln(os.Stderr, p+": no such node (waiting for it)")
		return fired, nil
	}
	for _, d := range []string{p, join(p, "leases"), join(p, "locks")} {
		_, _, ch, err := c.ChildrenW(ctx, d)
		if isNoNode(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		relay(ch)
	}
	_, _, ch, err = c.GetW(ctx, p)
	if err == nil {
		relay(ch)
	} else if !isNoNode(err) {
		return nil, err
	}
	v, err := inspect(ctx, c, p)
	if isNoNode(err) {
		return fired, nil
	}
	if err != nil {
		return nil, err
	}
	print(v)
	return fired, nil
}
