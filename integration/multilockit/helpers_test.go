package multilockit

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// newMulti makes a Multi over the mutexes at paths on c.
func newMulti(t testing.TB, c *client.Client, paths ...string) *mutex.Multi {
	t.Helper()
	m, err := mutex.NewMulti(c, paths)
	require.NoError(t, err)
	return m
}

// inside counts, per path, the holders inside their critical section, and
// every entry that found another holder of one of its paths inside.
type inside struct {
	mu         sync.Mutex
	in         map[string]int
	violations int
	entries    int
}

func newInside() *inside { return &inside{in: map[string]int{}} }

func (s *inside) enter(paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries++
	for _, p := range paths {
		if s.in[p] != 0 {
			s.violations++
		}
		s.in[p]++
	}
}

func (s *inside) leave(paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range paths {
		s.in[p]--
	}
}

func (s *inside) counts() (entries, violations int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entries, s.violations
}

// children lists dir's children as c sees them (none when dir is gone).
func children(t testing.TB, ctx context.Context, c *client.Client, dir string) []string {
	t.Helper()
	kids, _, err := c.Children(ctx, dir)
	if err != nil {
		return nil
	}
	return kids
}
