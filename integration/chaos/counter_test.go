package chaos

import "testing"

// TestSettleCount: the counter's exact account from the versions its
// increments reported, without a server.
func TestSettleCount(t *testing.T) {
	cases := []struct {
		name              string
		v                 int64
		version           int32
		successes, maybes []int32
		applied, problems int
	}{
		{"nothing", 0, 0, nil, nil, 0, 0},
		{"never made", 0, -1, nil, nil, 0, 0},
		{"successes only", 3, 3, []int32{1, 2, 3}, nil, 0, 0},
		{"a maybe applied", 3, 3, []int32{1, 3}, []int32{2}, 1, 0},
		{"a maybe beaten to its version", 2, 2, []int32{1, 2}, []int32{2}, 0, 0},
		{"two maybes, one version", 2, 2, []int32{1}, []int32{2, 2}, 1, 0},
		{"a version nobody made", 3, 3, []int32{1, 2}, nil, 0, 2},
		{"a success counted twice", 2, 2, []int32{1, 2, 2}, nil, 0, 2},
		{"a value off its version", 4, 3, []int32{1, 2, 3}, nil, 0, 2},
		{"a success beyond the node", 1, 1, []int32{1, 2}, nil, 0, 2},
	}
	for _, c := range cases {
		var applied int
		got := settleCount(c.v, c.version, c.successes, c.maybes, &applied)
		if len(got) != c.problems || applied != c.applied {
			t.Errorf("%s: %d problems %v, applied %d; want %d problems, applied %d", c.name, len(got), got, applied, c.problems, c.applied)
		}
	}
}
