package enum

import "testing"

type kind int

const (
	a kind = iota + 1
	b
)

func TestName(t *testing.T) {
	for v, want := range map[kind]string{a: "A", b: "B", 0: "kind(0)", 3: "kind(3)", -1: "kind(-1)"} {
		if got := Name(v, a, "kind", "A", "B"); got != want {
			t.Errorf("Name(%d) = %q, want %q", v, got, want)
		}
	}
}
