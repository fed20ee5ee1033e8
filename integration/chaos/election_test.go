package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestClipHold: short holds are kept; a long hold ends by LongUntil while
// that is far enough ahead, and lasts calmHold at most once it is near or
// past.
func TestClipHold(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		d, left, want time.Duration
	}{
		{300 * time.Millisecond, 10 * s, 300 * time.Millisecond}, // short: kept
		{300 * time.Millisecond, -5 * s, 300 * time.Millisecond}, // short, after LongUntil: kept
		{calmHold, -5 * s, calmHold},                             // the bound itself: kept
		{3 * s, 10 * s, 3 * s},                                   // long, ends before LongUntil: kept
		{3 * s, 2 * s, 2 * s},                                    // long: cut to end at LongUntil
		{3 * s, 200 * time.Millisecond, calmHold},                // LongUntil near: calmHold
		{3 * s, -5 * s, calmHold},                                // after LongUntil: calmHold
	} {
		require.Equal(t, c.want, clipHold(c.d, c.left), "d=%v left=%v", c.d, c.left)
	}
}

// TestHoldTime: with no LongUntil, holds are drawn as ever (some long);
// after it, none exceeds calmHold.
func TestHoldTime(t *testing.T) {
	a := &Part{Who: 1, Seed: 7, Session: time.Second}
	long := false
	for range 200 {
		long = long || a.HoldTime() > calmHold
	}
	require.True(t, long, "some draws outlast calmHold")
	a.LongUntil = time.Now().Add(-time.Second)
	for range 200 {
		require.LessOrEqual(t, a.HoldTime(), calmHold)
	}
}

// TestTermHeldNil: a nil term (no leadership) is lost already; its token
// is 0.
func TestTermHeldNil(t *testing.T) {
	h := TermHeld{}
	select {
	case <-h.Lost():
	default:
		t.Fatal("a nil term's Lost() is open")
	}
	tok, err := h.Token(context.Background())
	require.NoError(t, err)
	require.Zero(t, tok)
}
