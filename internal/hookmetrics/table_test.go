package hookmetrics

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// made is a value of a test Table: what it was made for, and in which
// call to newValue.
type made struct {
	name, path string
	n          int64
}

func countingTable(paths *Paths, ahead ...string) (*Table[*made], *atomic.Int64) {
	var calls atomic.Int64
	return NewTable(paths, func(name, path string) *made {
		return &made{name: name, path: path, n: calls.Add(1)}
	}, ahead...), &calls
}

// TestTableNotByPath: without Paths a name's value is made once, whatever
// the path, with an empty path label; the names ahead are made at once.
func TestTableNotByPath(t *testing.T) {
	tab, calls := countingTable(nil, "NODE_CREATED", "INITIALIZED")
	if calls.Load() != 2 {
		t.Fatalf("%d values made ahead, want 2", calls.Load())
	}
	a := tab.Get("mutex", "/a")
	if b := tab.Get("mutex", "/b"); b != a || a.path != "" || a.name != "mutex" {
		t.Errorf("mutex at /a %+v, at /b %+v: want one value with no path", a, b)
	}
	if v := tab.Get("NODE_CREATED", "/c"); v.n > 2 {
		t.Errorf("a name made ahead was made again: %+v", v)
	}
	if calls.Load() != 3 {
		t.Errorf("%d values made, want 3", calls.Load())
	}
}

// TestTableByPath: with Paths each path label has a value of its own,
// the paths past the cap share PathOther's, and nothing is made ahead (no
// path is known yet).
func TestTableByPath(t *testing.T) {
	tab, calls := countingTable(NewPaths(2), "NODE_CREATED")
	if calls.Load() != 0 {
		t.Fatalf("%d values made ahead by path", calls.Load())
	}
	a, b := tab.Get("mutex", "/a"), tab.Get("mutex", "/b")
	if a == b || a.path != "/a" || b.path != "/b" {
		t.Errorf("/a %+v, /b %+v: want a value each", a, b)
	}
	if again := tab.Get("mutex", "/a"); again != a {
		t.Errorf("/a again: %+v, want %+v", again, a)
	}
	c, d := tab.Get("mutex", "/c"), tab.Get("semaphore", "/d")
	if c.path != PathOther || d.path != PathOther || tab.Get("mutex", "/e") != c {
		t.Errorf("past the cap: %+v, %+v; want both at %q, /e sharing /c's", c, d, PathOther)
	}
	if c == d {
		t.Error("two names share a value")
	}
}

// TestTableRange: Range visits each value made, once, and stops when f
// returns false.
func TestTableRange(t *testing.T) {
	tab, _ := countingTable(nil, "x", "y")
	tab.Get("z", "")
	var names []string
	tab.Range(func(v *made) bool { names = append(names, v.name); return true })
	slices.Sort(names)
	if !slices.Equal(names, []string{"x", "y", "z"}) {
		t.Errorf("Range visited %v", names)
	}
	n := 0
	tab.Range(func(*made) bool { n++; return false })
	if n != 1 {
		t.Errorf("Range went on %d times after false", n)
	}
}

// TestTableConcurrent: goroutines asking for the same names at once all
// get the same value of each (run with -race).
func TestTableConcurrent(t *testing.T) {
	tab, _ := countingTable(NewPaths(5))
	var wg sync.WaitGroup
	got := make([][]*made, 8)
	for g := range got {
		wg.Go(func() {
			for i := range 20 {
				got[g] = append(got[g], tab.Get("mutex", fmt.Sprintf("/p/%d", i)))
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i, v := range got[g] {
			if v != got[0][i] {
				t.Fatalf("goroutine %d, path %d: %+v, another goroutine %+v", g, i, v, got[0][i])
			}
		}
	}
}

// TestTableGetAllocs: a value made, Get allocates nothing, by path or not.
func TestTableGetAllocs(t *testing.T) {
	for _, paths := range []*Paths{nil, NewPaths(1)} {
		tab, _ := countingTable(paths)
		tab.Get("mutex", "/a")
		if n := testing.AllocsPerRun(100, func() { tab.Get("mutex", "/a"); tab.Get("mutex", "/b") }); n != 0 {
			t.Errorf("by path %v: %v allocations", paths != nil, n)
		}
	}
}
