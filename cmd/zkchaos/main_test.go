package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestFlagsRejected: bad flags exit 2 with a message naming the flag, and
// start nothing.
func TestFlagsRejected(t *testing.T) {
	for _, args := range [][]string{
		{"-recipe", "nosuch"},
		{"-duration", "0s"},
		{"-servers", "0"},
		{"-parts", "0"},
		{"-parts", "17"},
		{"-session", "10ms"},
		{"-fault", "-1s"},
		{"-calm", "0s"},
		{"-progress", "0s"},
		{"-backend", "kvm"},
		{"extra"},
		{"-nosuchflag"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if errb.Len() == 0 || out.Len() != 0 {
			t.Errorf("%q: stdout %q, stderr %q; want only an error on stderr", args, out.String(), errb.String())
		}
	}
}

// TestFlagsParsed: every recipe by default, a list by name, and the
// seed from the clock unless given.
func TestFlagsParsed(t *testing.T) {
	o, err := parseFlags(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(o.recipes, ","); got != "barrier,cache,counter,latch,multilock,mutex,node,queue,run,rwlock,semaphore" {
		t.Errorf("default recipes %q", got)
	}
	if o.seed == 0 || o.servers != 3 || o.duration != 30*time.Minute {
		t.Errorf("defaults %+v", o)
	}
	o, err = parseFlags([]string{"-recipe", "mutex, semaphore", "-seed", "7"}, &bytes.Buffer{})
	if err != nil || strings.Join(o.recipes, ",") != "mutex,semaphore" || o.seed != 7 {
		t.Errorf("parsed %+v, %v", o, err)
	}
	if code := run(context.Background(), []string{"-h"}, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
}

// TestFlatness: a flat series passes, a growing one fails, a short one
// is not judged.
func TestFlatness(t *testing.T) {
	mk := func(heapsMiB []uint64, gs []int) []sample {
		var s []sample
		for i := range heapsMiB {
			s = append(s, sample{heap: heapsMiB[i] << 20, goroutines: gs[i]})
		}
		return s
	}
	if ok, rep := flatness(mk([]uint64{1, 2, 3, 3, 3, 3, 4, 3}, []int{6, 7, 7, 7, 7, 7, 8, 7})); !ok {
		t.Errorf("flat series judged growing: %s", rep)
	}
	if ok, rep := flatness(mk([]uint64{1, 2, 3, 3, 3, 10, 20, 30}, []int{6, 7, 7, 7, 7, 7, 7, 7})); ok {
		t.Errorf("growing heap judged flat: %s", rep)
	}
	if ok, rep := flatness(mk([]uint64{1, 2, 3, 3, 3, 3, 3, 3}, []int{6, 7, 7, 7, 7, 40, 60, 80})); ok {
		t.Errorf("growing goroutines judged flat: %s", rep)
	}
	if ok, rep := flatness(mk([]uint64{1, 2}, []int{6, 7})); !ok || !strings.Contains(rep, "too few") {
		t.Errorf("short series: %v %s", ok, rep)
	}
}
