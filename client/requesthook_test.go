package client

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
)

// TestRequestLabel: each error a request can end with has its class, and
// wrapping keeps it.
func TestRequestLabel(t *testing.T) {
	for err, want := range map[error]string{
		nil:                    RequestOK,
		zk.ErrNoNode:           RequestNoNode,
		zk.ErrNodeExists:       RequestNodeExists,
		zk.ErrBadVersion:       RequestBadVersion,
		zk.ErrNotEmpty:         RequestNotEmpty,
		zk.ErrNoAuth:           RequestNoAuth,
		zk.ErrAuthFailed:       RequestNoAuth,
		zk.ErrConnectionClosed: RequestConnectionLoss,
		errors.Join(zk.ErrConnectionClosed, errors.New("bad frame")): RequestConnectionLoss,
		zk.ErrSessionExpired:              RequestSessionExpired,
		zk.ErrClosing:                     RequestClosed,
		fmt.Errorf("x: %w", zk.ErrNoNode): RequestNoNode,
		zk.ErrBadArguments:                RequestError,
		wire.CodeError(-1234):             RequestError,
	} {
		if got := (RequestHook{Op: OpGetData, Err: err}).Label(); got != want {
			t.Errorf("Label of %v: %q, want %q", err, got, want)
		}
	}
}

// TestRequestOpNames: the wire's names are the Op constants, and the
// session's own requests are not reported.
func TestRequestOpNames(t *testing.T) {
	known := map[string]bool{OpCreate: true, OpDelete: true, OpExists: true, OpGetData: true, OpSetData: true,
		OpGetChildren: true, OpMulti: true, OpSync: true, OpGetACL: true, OpSetACL: true, OpAddWatch: true,
		OpRemoveWatches: true, OpOther: true}
	seen := map[string]bool{}
	for op := int32(-20); op < 200; op++ {
		name := wire.OpName(op)
		if name == "" {
			continue
		}
		if !known[name] {
			t.Errorf("op %d is reported as %q, not an Op constant", op, name)
		}
		seen[name] = true
	}
	for name := range known {
		if !seen[name] {
			t.Errorf("no op is reported as %q", name)
		}
	}
	for _, op := range []int32{-11, 11, 100, 101, 105} { // closeSession, ping, auth, setWatches(2)
		if name := wire.OpName(op); name != "" {
			t.Errorf("the session's own op %d is reported as %q", op, name)
		}
	}
	var got []RequestHook
	report := (&Hooks{Request: func(r RequestHook) { got = append(got, r) }}).requests()
	report(1, time.Millisecond, nil)
	report(100, time.Millisecond, nil) // auth: not reported
	report(3, 2*time.Millisecond, zk.ErrNoNode)
	if len(got) != 2 || got[0] != (RequestHook{Op: OpCreate, Duration: time.Millisecond}) ||
		got[1] != (RequestHook{Op: OpExists, Duration: 2 * time.Millisecond, Err: zk.ErrNoNode}) {
		t.Errorf("reported %+v", got)
	}
}

// TestRequestReportAllocs: reporting a request allocates nothing.
func TestRequestReportAllocs(t *testing.T) {
	n := 0
	report := (&Hooks{Request: func(RequestHook) { n++ }}).requests()
	err := error(zk.ErrNoNode)
	if a := testing.AllocsPerRun(1000, func() { report(4, time.Millisecond, err) }); a != 0 {
		t.Errorf("%v allocations per report, want 0", a)
	}
	if n == 0 {
		t.Error("nothing reported")
	}
}
