package hookmetrics

import (
	"fmt"
	"sync"
	"testing"
)

// TestPathsCap: the first max distinct paths are themselves, asked for
// again or not; every later one is PathOther.
func TestPathsCap(t *testing.T) {
	p := NewPaths(2)
	for _, c := range []struct{ path, want string }{
		{"/a", "/a"}, {"/a", "/a"}, {"/b", "/b"}, {"/c", PathOther}, {"/a", "/a"}, {"/b", "/b"}, {"/d", PathOther}, {"/c", PathOther},
	} {
		if got := p.Label(c.path); got != c.want {
			t.Errorf("Label(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

// TestPathsConcurrent: however many goroutines ask at once, exactly max
// distinct paths are labelled as themselves, and each keeps its label.
func TestPathsConcurrent(t *testing.T) {
	const max = 10
	p := NewPaths(max)
	var wg sync.WaitGroup
	labels := make([]map[string]string, 8)
	for g := range labels {
		labels[g] = make(map[string]string)
		wg.Go(func() {
			for i := range 50 {
				path := fmt.Sprintf("/p/%d", (i*7+g)%50)
				labels[g][path] = p.Label(path)
			}
		})
	}
	wg.Wait()
	own := make(map[string]bool)
	for _, m := range labels {
		for path, l := range m {
			if l != PathOther {
				own[path] = true
			}
			if again := p.Label(path); again != l {
				t.Errorf("%s labelled %q, then %q", path, l, again)
			}
		}
	}
	if len(own) != max {
		t.Errorf("%d paths labelled as themselves, want %d", len(own), max)
	}
}
