// Command checkshape fails when a recipe package breaks the conventions
// that every package under recipes/ shares and that can be checked from
// its source alone (docs/api.md, "Conventions"):
//
//   - it declares `type Option func(*options) error`, and any other
//     exported XxxOption type has the same shape;
//   - it exports no alias of a type of an internal package;
//   - it re-exports no other package's variable (the shared sentinels are
//     declared once, in package zkrecipes);
//   - Start is `Start(ctx context.Context) error`, Close is `Close() error`
//     or `Close(ctx context.Context) error`, and Events returns a receive
//     channel and a cancel func;
//   - no function is called WithLogger (recipes log through the client's
//     logger);
//   - an exported function or method that takes a context.Context takes it
//     first.
//
// Each package directory given is checked (test files are skipped), and
// every offence is printed as file:line: rule.
//
//	go run ./scripts/checkshape recipes/*/
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: checkshape dir...")
		os.Exit(2)
	}
	var all []string
	for _, dir := range os.Args[1:] {
		offences, err := checkDir(filepath.Clean(dir))
		if err != nil {
			fmt.Fprintln(os.Stderr, "checkshape:", err)
			os.Exit(2)
		}
		all = append(all, offences...)
	}
	if len(all) > 0 {
		sort.Strings(all)
		fmt.Fprintf(os.Stderr, "checkshape: FAIL: %d breaches of the recipes' conventions:\n", len(all))
		for _, o := range all {
			fmt.Fprintln(os.Stderr, "  "+o)
		}
		os.Exit(1)
	}
	fmt.Printf("checkshape: %d recipe packages keep the conventions\n", len(os.Args)-1)
}
