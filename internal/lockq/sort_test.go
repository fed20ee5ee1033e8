package lockq

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSortKey(t *testing.T) {
	rw := []string{"__READ__", "__WRIT__"}
	cases := []struct {
		name        string
		markers     []string
		key, marker string
	}{
		{"_c_71d21572-9852-490d-bfb6-55aaa5ed5d42-lock-0000000000", []string{"lock-"}, "0000000000", "lock-"},
		{"lock-0000000042", []string{"lock-"}, "0000000042", "lock-"},
		// The text after the LAST occurrence counts.
		{"_c_x-lock-lock-0000000007", []string{"lock-"}, "0000000007", "lock-"},
		{"lock-a-lock-0000000003", []string{"lock-"}, "0000000003", "lock-"},
		// Marker at the very end: empty key.
		{"weird-lock-", []string{"lock-"}, "", "lock-"},
		// No marker: the whole name, and no marker.
		{"aaa-foreign", []string{"lock-"}, "aaa-foreign", ""},
		{"!first", []string{"lock-"}, "!first", ""},
		{"", []string{"lock-"}, "", ""},
		{"lock", []string{"lock-"}, "lock", ""},
		// Several markers in one directory.
		{"_c_a-__READ__0000000001", rw, "0000000001", "__READ__"},
		{"_c_b-__WRIT__0000000002", rw, "0000000002", "__WRIT__"},
		// Empty markers are ignored rather than matching everything.
		{"_c_b-lock-0000000002", []string{"", "lock-"}, "0000000002", "lock-"},
		{"anything", []string{""}, "anything", ""},
		{"anything", nil, "anything", ""},
	}
	for _, c := range cases {
		key, marker := SortKey(c.name, c.markers)
		assert.Equal(t, c.key, key, "key of %q", c.name)
		assert.Equal(t, c.marker, marker, "marker of %q", c.name)
	}
}

func nodeNames(nodes []Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name
	}
	return out
}

// TestSortedBySequenceNotName checks Curator's rule: the sequence after the
// marker orders the queue, whatever the random UUID before it.
func TestSortedBySequenceNotName(t *testing.T) {
	want := []string{
		"_c_88888888-0000-0000-0000-000000000000-lock-0000000000",
		"_c_ffffffff-0000-0000-0000-000000000000-lock-0000000001",
		"_c_11111111-0000-0000-0000-000000000000-lock-0000000002",
		"_c_00000000-0000-0000-0000-000000000000-lock-0000000003",
		"lock-0000000010", // not protected (a non-Curator client): still a contender
	}
	kids := []string{want[1], want[3], want[0], want[4], want[2]}
	got := Sorted(kids, []string{"lock-"})
	assert.Equal(t, want, nodeNames(got))
	for _, n := range got {
		assert.Equal(t, "lock-", n.Marker)
		assert.Len(t, n.Key, 10)
	}
	assert.Equal(t, []string{want[1], want[3], want[0], want[4], want[2]}, kids, "Sorted changed its input")
}

// TestSortedDropsForeignChildren checks that children without a marker are
// no contenders, wherever their names would sort.
func TestSortedDropsForeignChildren(t *testing.T) {
	kids := []string{"aaa-foreign", "_c_b-lock-0000000002", "!first", "0000000000", "zzz", "_c_a-lock-0000000001", "lock"}
	got := Sorted(kids, []string{"lock-"})
	assert.Equal(t, []string{"_c_a-lock-0000000001", "_c_b-lock-0000000002"}, nodeNames(got))

	assert.Empty(t, Sorted([]string{"!first", "aaa-foreign"}, []string{"lock-"}))
	assert.Empty(t, Sorted(nil, []string{"lock-"}))
	assert.Empty(t, Sorted([]string{"_c_a-lock-0000000001"}, nil), "no markers: nothing is a contender")
}

// TestSortedTies checks that equal keys (a read/write lock's downgrade node
// carries its writer's sequence) are ordered by name, deterministically.
func TestSortedTies(t *testing.T) {
	rw := []string{"__READ__", "__WRIT__"}
	w := "_c_ca0b74e7-aa73-468b-bbe8-e7876902eec7-__WRIT__0000000005"
	r := "_c_084e9e0b-2266-42df-9b45-21eebf13bca2-__READ__0000000005"
	before := "_c_f-__READ__0000000004"
	after := "_c_0-__WRIT__0000000006"
	want := []string{before, r, w, after} // "_c_0..." < "_c_c..." by name
	for _, kids := range [][]string{{w, r, after, before}, {after, r, w, before}, {r, w, before, after}} {
		assert.Equal(t, want, nodeNames(Sorted(kids, rw)))
	}
	got := Sorted([]string{w, r}, rw)
	assert.Equal(t, "__READ__", got[0].Marker)
	assert.Equal(t, "__WRIT__", got[1].Marker)
	assert.Equal(t, got[0].Key, got[1].Key)
}

// TestSortedIsAPermutationInOrder shuffles many listings and checks that the
// result is always the same order: by key, then by name.
func TestSortedIsAPermutationInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var kids []string
	for i := range 200 {
		seq := rng.IntN(120) // ties happen
		marker := "__READ__"
		if i%3 == 0 {
			marker = "__WRIT__"
		}
		kids = append(kids, "_c_"+string(rune('a'+i%26))+string(rune('a'+i/26))+"-"+marker+pad10(seq))
	}
	kids = append(kids, "foreign-1", "!foreign")
	first := nodeNames(Sorted(kids, []string{"__READ__", "__WRIT__"}))
	require.Len(t, first, 200)
	for range 20 {
		rng.Shuffle(len(kids), func(i, j int) { kids[i], kids[j] = kids[j], kids[i] })
		got := Sorted(kids, []string{"__READ__", "__WRIT__"})
		require.Equal(t, first, nodeNames(got))
		require.True(t, slices.IsSortedFunc(got, func(a, b Node) int {
			if a.Key != b.Key {
				if a.Key < b.Key {
					return -1
				}
				return 1
			}
			switch {
			case a.Name < b.Name:
				return -1
			case a.Name > b.Name:
				return 1
			}
			return 0
		}))
	}
}

func pad10(n int) string {
	s := []byte("0000000000")
	for i := 9; i >= 0 && n > 0; i-- {
		s[i] = byte('0' + n%10)
		n /= 10
	}
	return string(s)
}

func TestIndexOf(t *testing.T) {
	nodes := Sorted([]string{"_c_b-lock-0000000002", "_c_a-lock-0000000001", "foreign"}, []string{"lock-"})
	assert.Equal(t, 0, IndexOf(nodes, "_c_a-lock-0000000001"))
	assert.Equal(t, 1, IndexOf(nodes, "_c_b-lock-0000000002"))
	assert.Equal(t, -1, IndexOf(nodes, "foreign"), "a foreign child is not in the queue")
	assert.Equal(t, -1, IndexOf(nodes, "_c_c-lock-0000000003"))
	assert.Equal(t, -1, IndexOf(nil, "x"))
}
