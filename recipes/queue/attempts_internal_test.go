package queue

import (
	"testing"
	"time"
)

// TestAttemptsTravelAfterTheEndMarker: the count of failed attempts goes
// after the end marker of Curator's format, which decodeItems (as
// Curator's reader) stops at: the items read the same with or without it.
func TestAttemptsTravelAfterTheEndMarker(t *testing.T) {
	items := [][]byte{[]byte("a"), {}, []byte("ccc")}
	plain := encodeItems(items)
	if n := attemptsOf(plain); n != 0 {
		t.Errorf("a node without a count: %d", n)
	}
	if got := withAttempts(plain, 0); string(got) != string(plain) {
		t.Errorf("a count of 0 is written: %q", got)
	}
	marked := withAttempts(encodeItems(items), 7)
	if len(marked) != len(plain)+attemptsSize {
		t.Errorf("marked %d bytes, want %d", len(marked), len(plain)+attemptsSize)
	}
	if n := attemptsOf(marked); n != 7 {
		t.Errorf("count %d, want 7", n)
	}
	got, err := decodeItems(marked)
	if err != nil || len(got) != 3 || string(got[0]) != "a" || len(got[1]) != 0 || string(got[2]) != "ccc" {
		t.Errorf("the marked node's items: %q, %v", got, err)
	}
	for _, bad := range [][]byte{nil, []byte("xx"), append(encodeItems(items), 1, 2, 3), append(encodeItems(items), "zkrb\x00\x00\x00\x05"...)} {
		if n := attemptsOf(bad); n != 0 {
			t.Errorf("attemptsOf(%q) = %d, want 0", bad, n)
		}
	}
}

// TestBackoffDoubles: the backoff after the n-th failure doubles from the
// first up to the max.
func TestBackoffDoubles(t *testing.T) {
	q := &core{o: options{backoffFirst: DefaultRequeueBackoff, backoffMax: DefaultMaxRequeueBackoff}}
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000}
	for i, w := range want {
		if got := q.backoff(i + 1); got != w*time.Millisecond {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	if got := q.backoff(1 << 30); got != DefaultMaxRequeueBackoff {
		t.Errorf("backoff(huge) = %v", got)
	}
}
