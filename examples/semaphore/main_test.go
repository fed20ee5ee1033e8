package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

var finalLine = regexp.MustCompile(`^max at once (\d+) of (\d+), over the limit (\d+)$`)

// checkRoom runs the program and checks its report: every packer held a
// lease once, the peak is min(packers, licences) and nothing went over.
func checkRoom(t *testing.T, args []string, packers, licences int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, args, &out); err != nil {
		t.Fatalf("run %q: %v\noutput:\n%s", args, err, out.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	m := finalLine.FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("last line %q is not the report; output:\n%s", lines[len(lines)-1], out.String())
	}
	peak, _ := strconv.Atoi(m[1])
	if want := min(packers, licences); peak != want || m[2] != strconv.Itoa(licences) || m[3] != "0" {
		t.Errorf("report %q, want max at once %d of %d, over the limit 0", m[0], want, licences)
	}
	if got := strings.Count(out.String(), " holds lease-"); got != packers {
		t.Errorf("%d grant lines, want %d:\n%s", got, packers, out.String())
	}
	server := fmt.Sprintf("on the server: at most %d lease nodes at a grant", min(packers, licences))
	if !strings.Contains(out.String(), server) {
		t.Errorf("no line %q in output:\n%s", server, out.String())
	}
	return out.String()
}

func TestPackingAgainstGivenEnsemble(t *testing.T) {
	cluster := zktest.ForTest(t)
	ignore := goleak.IgnoreCurrent()
	for _, tc := range []struct{ packers, licences int }{
		{10, 3}, // the story
		{2, 3},  // fewer packers than licences
		{4, 1},  // one at a time
	} {
		t.Run(fmt.Sprintf("packers%d-licences%d", tc.packers, tc.licences), func(t *testing.T) {
			args := []string{"-zk", cluster.ConnectString(),
				"-packers", strconv.Itoa(tc.packers), "-licences", strconv.Itoa(tc.licences)}
			if out := checkRoom(t, args, tc.packers, tc.licences); strings.Contains(out, "throwaway") {
				t.Errorf("started its own server although -zk was given:\n%s", out)
			}
		})
	}
	goleak.VerifyNone(t, ignore)
}

// TestPackingStartsItsOwnServer runs the command as `go run` does, with no flags.
func TestPackingStartsItsOwnServer(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	out := checkRoom(t, nil, 10, 3)
	if !strings.HasPrefix(out, "throwaway ZooKeeper") {
		t.Errorf("without -zk the first line should name the throwaway server:\n%s", out)
	}
	if !strings.HasSuffix(out, "max at once 3 of 3, over the limit 0\n") {
		t.Errorf("output does not end with the story's report:\n%s", out)
	}
	goleak.VerifyNone(t, ignore)
}

func TestPackingRejectsBadFlags(t *testing.T) {
	itest.CheckRejectsFlags(t, run,
		[]string{"-packers", "0"},
		[]string{"-packers", "1001"},
		[]string{"-licences", "0"},
		[]string{"-zk", ","},
		[]string{"-nosuchflag"},
		[]string{"extra"},
	)
}
