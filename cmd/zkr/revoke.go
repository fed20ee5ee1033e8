package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// isHolding reports whether a role holds (a lock, a lease, leadership).
func isHolding(role string) bool {
	switch role {
	case roleHolder, roleReader, roleWriter, roleLeader, roleLease:
		return true
	}
	return false
}

func newRevoke(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke PATH [NODE]",
		Short: "Ask a lock's holder to release it (Curator's __REVOKE__ marker)",
		Long: `revoke writes Curator's "__REVOKE__" marker into the holder's node of the
lock at PATH (or into NODE, a contender's node name as zkr show prints it),
which calls the holder's revocation listener (mutex.WithRevocationListener,
Curator's RevocationListener). A holder without a listener ignores it. Without
NODE, the first holder is asked (of several readers, the first in the queue).
Locks only (mutex, rwlock, a LeaderSelector's "lock-" nodes): exit 2 on
another kind.
Exit 1 when there is no holder or NODE is not a contender.`,
		Example: `  zkr revoke /locks/nightly
  zkr revoke /locks/nightly _c_0f8c1e0e-3f5c-4a4e-9d0b-7a1d2c3b4a59-lock-0000000042`,
		Args: argsOrUsage(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := args[0]
			if err := checkPath(p); err != nil {
				return err
			}
			return g.with(func(ctx context.Context, c clientAPI) error {
				v, err := inspect(ctx, c, p)
				if err != nil {
					return opErr(p, err)
				}
				if v.Kind != kindMutex && v.Kind != kindRWLock {
					if v.Kind == kindNone {
						return fail(exitNotFound, "%s: no holder (no lock here)", p)
					}
					return usageErr("%s is a %s: revoke works on locks", p, v.Kind)
				}
				var target *NodeView
				for i := range v.Nodes {
					n := &v.Nodes[i]
					if len(args) == 2 && n.Name == args[1] || len(args) == 1 && isHolding(n.Role) {
						target = n
						break
					}
				}
				if target == nil {
					if len(args) == 2 {
						return fail(exitNotFound, "%s: no contender named %s", p, args[1])
					}
					return fail(exitNotFound, "%s: no holder", p)
				}
				if err := mutex.Revoke(ctx, c, join(p, target.Name)); err != nil {
					return opErr(join(p, target.Name), err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revocation asked of %s (%s, session %s)\n", target.Name, dash(target.Data), target.Session)
				return nil
			})
		},
	}
}
