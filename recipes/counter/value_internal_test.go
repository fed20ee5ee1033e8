package counter

import (
	"bytes"
	"math"
	"testing"
)

// TestEncoding: Curator's layout, 8 bytes big-endian two's complement;
// empty reads as 0; any other length is no counter.
func TestEncoding(t *testing.T) {
	cases := map[int64][]byte{
		0:             {0, 0, 0, 0, 0, 0, 0, 0},
		7:             {0, 0, 0, 0, 0, 0, 0, 7},
		-1:            {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		1 << 40:       {0, 0, 1, 0, 0, 0, 0, 0},
		math.MaxInt64: {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		math.MinInt64: {0x80, 0, 0, 0, 0, 0, 0, 0},
	}
	for n, want := range cases {
		if got := encode(n); !bytes.Equal(got, want) {
			t.Errorf("encode(%d) = % x, want % x", n, got, want)
		}
		if got, ok := decode(want); !ok || got != n {
			t.Errorf("decode(% x) = %d, %v", want, got, ok)
		}
	}
	if n, ok := decode(nil); !ok || n != 0 {
		t.Errorf("decode(empty) = %d, %v", n, ok)
	}
	for _, bad := range [][]byte{[]byte("foo"), make([]byte, 4), make([]byte, 9)} {
		if _, ok := decode(bad); ok {
			t.Errorf("decode(% x) accepted", bad)
		}
	}
}
