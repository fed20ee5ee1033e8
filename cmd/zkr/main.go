// Command zkr is the operator's command for zkrecipes: who holds a lock, who
// waits, who leads, who has leases; and a safe way to act on it (run a
// command while holding a lock or leading, revoke, set a shared count).
//
// Exit codes: 0 ok, 1 not found / no holder / doctor found problems,
// 2 usage (bad flag, bad path), 3 cannot connect. Errors are one line on
// stderr. The server list comes from --zk or ZKR_ZK; digest credentials only
// from ZKR_AUTH=user:password.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Exit codes that scripts can rely on.
const (
	exitOK       = 0
	exitNotFound = 1
	exitUsage    = 2
	exitConnect  = 3
)

// exitError is an error with the exit code it ends the process with.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

func usageErr(format string, args ...any) error { return fail(exitUsage, format, args...) }

// codeOf maps an error from Execute to an exit code: our own errors carry
// theirs; anything else comes from cobra's flag and argument parsing.
func codeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}

// oneLine keeps an error message to one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the command line and returns the exit code.
func run(args []string) int {
	root := newRoot()
	root.SetArgs(args)
	err := root.Execute()
	var ee *exitError
	if errors.As(err, &ee) && ee.msg == "" {
		return ee.code // a child's exit status, passed through silently
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "zkr: "+oneLine(err.Error()))
		return codeOf(err)
	}
	return exitOK
}
