package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"
)

func newCount(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "count",
		Short: "Read or write a shared count (Curator's SharedCount: a 4-byte big-endian int32)",
		Example: `  zkr count get /limits/reports
  zkr count set /limits/reports 5`,
	}
	get := &cobra.Command{
		Use:   "get PATH",
		Short: "Print a shared count's value (exit 1 when missing or not a count)",
		Long: `get prints the count's value on one line; with --json, {"path", "value",
"version"}. Exit 1 when the node is missing or its data is not 4 bytes.`,
		Example: `  zkr count get /limits/reports
  zkr count get /limits/reports --json`,
		Args: argsOrUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := args[0]
			if err := checkPath(p); err != nil {
				return err
			}
			return g.with(func(ctx context.Context, c clientAPI) error {
				data, st, err := c.Get(ctx, p)
				if err != nil {
					return opErr(p, err)
				}
				v, ok := parseCount(data)
				if !ok {
					return fail(exitNotFound, "%s is not a shared count (%d bytes of data, want 4)", p, len(data))
				}
				if g.json {
					return writeJSON(cmd.OutOrStdout(), countJSON{Path: p, Value: v, Version: st.Version})
				}
				fmt.Fprintln(cmd.OutOrStdout(), v)
				return nil
			})
		},
	}
	addJSON(get, g)
	set := &cobra.Command{
		Use:   "set PATH N",
		Short: "Write a shared count (created, as a persistent node, when missing)",
		Long: `set writes N (a 32-bit signed integer) as the count at PATH, whatever its
version; a missing node is created PERSISTENT (missing parents as containers).
It prints the new value and version.`,
		Example: `  zkr count set /limits/reports 5
  zkr count set /limits/reports -- -1     # a negative number after --`,
		Args: argsOrUsage(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := args[0]
			if err := checkPath(p); err != nil {
				return err
			}
			n, err := strconv.ParseInt(args[1], 10, 32)
			if err != nil {
				return usageErr("bad count %q: want a 32-bit integer", args[1])
			}
			return g.with(func(ctx context.Context, c clientAPI) error {
				data := encodeCount(int32(n))
				if old, _, err := c.Get(ctx, p); err == nil && len(old) != 4 && len(old) != 0 {
					return fail(exitNotFound, "%s is not a shared count (%d bytes of data): not overwritten", p, len(old))
				}
				st, err := c.Set(ctx, p, data, -1)
				if isNoNode(err) {
					_, err = c.Create(ctx, p, data, 0, client.WithParents())
					switch {
					case err == nil:
						_, st, err = c.Exists(ctx, p)
					case isNodeExists(err): // created meanwhile by another writer
						st, err = c.Set(ctx, p, data, -1)
					}
				}
				if err == nil && st == nil {
					err = zk.ErrNoNode // deleted again at once
				}
				if err != nil {
					return opErr(p, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s  value %d  version %d\n", p, n, st.Version)
				return nil
			})
		},
	}
	cmd.AddCommand(get, set)
	return cmd
}

// countJSON is count get's JSON.
type countJSON struct {
	Path    string `json:"path"`
	Value   int32  `json:"value"`
	Version int32  `json:"version"`
}

func isNodeExists(err error) bool { return err != nil && errors.Is(err, zk.ErrNodeExists) }
