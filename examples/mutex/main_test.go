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

var finalLine = regexp.MustCompile(`^sold (\d+) of (\d+), oversold (\d+)$`)

// lastLine returns the last non-empty line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

// checkShop runs the program and checks its report against what a correct
// shop must print.
func checkShop(t *testing.T, args []string, stock, buyers int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, args, &out); err != nil {
		t.Fatalf("run %q: %v\noutput:\n%s", args, err, out.String())
	}
	last := lastLine(out.String())
	m := finalLine.FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("last line %q is not the report; output:\n%s", last, out.String())
	}
	sold, _ := strconv.Atoi(m[1])
	of, _ := strconv.Atoi(m[2])
	if m[3] != "0" {
		t.Errorf("oversold %s, want 0", m[3])
	}
	if want := min(stock, buyers); sold != want {
		t.Errorf("sold %d, want min(stock %d, buyers %d) = %d", sold, stock, buyers, want)
	}
	if of != stock {
		t.Errorf("report says %d in stock, want %d", of, stock)
	}
	// Every buyer printed exactly one line while holding the lock, and the
	// bought lines count down the stock one by one.
	if got := strings.Count(out.String(), "holds the lock (token 0x"); got != buyers {
		t.Errorf("%d buyer lines, want %d", got, buyers)
	}
	for i := range min(stock, buyers) {
		step := fmt.Sprintf(": stock %d -> %d, bought", stock-i, stock-i-1)
		if !strings.Contains(out.String(), step) {
			t.Errorf("no line %q in output:\n%s", step, out.String())
		}
	}
	return out.String()
}

func TestShopAgainstGivenEnsemble(t *testing.T) {
	cluster := zktest.ForTest(t)
	ignore := goleak.IgnoreCurrent()
	for _, tc := range []struct{ stock, buyers int }{
		{2, 10}, // the story: two hair dryers, ten buyers
		{5, 3},  // more stock than buyers
		{0, 2},  // nothing to sell
		{3, 3},
	} {
		t.Run(fmt.Sprintf("stock%d-buyers%d", tc.stock, tc.buyers), func(t *testing.T) {
			args := []string{"-zk", cluster.ConnectString(),
				"-stock", strconv.Itoa(tc.stock), "-buyers", strconv.Itoa(tc.buyers)}
			out := checkShop(t, args, tc.stock, tc.buyers)
			if strings.Contains(out, "throwaway") {
				t.Errorf("started its own server although -zk was given:\n%s", out)
			}
		})
	}
	goleak.VerifyNone(t, ignore)
}

func TestShopStartsItsOwnServer(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	out := checkShop(t, nil, 2, 10)
	if !strings.HasPrefix(out, "throwaway ZooKeeper") {
		t.Errorf("without -zk the first line should name the throwaway server:\n%s", out)
	}
	goleak.VerifyNone(t, ignore)
}

func TestShopRejectsBadFlags(t *testing.T) {
	itest.CheckRejectsFlags(t, run,
		[]string{"-buyers", "0"},
		[]string{"-stock", "-1"},
		[]string{"-zk", ","},
		[]string{"-nosuchflag"},
		[]string{"extra"},
	)
}
