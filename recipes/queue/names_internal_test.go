package queue

import (
	"math"
	"slices"
	"testing"
)

// TestPriorityPrefix: Curator's priorityToString, and names that sort as
// their priorities.
func TestPriorityPrefix(t *testing.T) {
	for _, c := range []struct {
		p    int32
		want string
	}{
		{0, "queue-100000000"},
		{1, "queue-100000001"},
		{10, "queue-10000000A"},
		{math.MaxInt32, "queue-17FFFFFFF"},
		{-1, "queue-0FFFFFFFF"},
		{math.MinInt32, "queue-080000000"},
	} {
		if got := priorityPrefix(c.p); got != c.want {
			t.Errorf("priority %d: %q, want %q", c.p, got, c.want)
		}
		if got, ok := parsePriority(c.want + "0000000007"); !ok || got != c.p {
			t.Errorf("parse %q: %d %v, want %d", c.want, got, ok, c.p)
		}
	}
	ps := []int32{math.MaxInt32, 5, -5, 0, math.MinInt32, -1, 1}
	var names []string
	for i, p := range ps {
		names = append(names, priorityPrefix(p)+"000000000"+string(rune('0'+i)))
	}
	items, foreign := kindPriority.entries(names)
	if len(foreign) != 0 {
		t.Fatal(foreign)
	}
	var got []int32
	for _, e := range items {
		p, _ := parsePriority(e.name)
		got = append(got, p)
	}
	if !slices.IsSorted(got) {
		t.Errorf("priority names sort as %v", got)
	}
	if _, ok := parsePriority("queue-0000000012"); ok {
		t.Error("a plain name holds no priority")
	}
}

// TestDelayNames: Curator's epochToString and getEpoch.
func TestDelayNames(t *testing.T) {
	if got := delayPrefix(0x19A4C2F1D80); got != "queue-|19A4C2F1D80|" {
		t.Errorf("delayPrefix: %q", got)
	}
	if got := delayPrefix(5); got != "queue-|00000005|" {
		t.Errorf("delayPrefix(5): %q", got)
	}
	for name, want := range map[string]int64{
		"queue-|19A4C2F1D80|0000000001": 0x19A4C2F1D80,
		"queue-|00000005|0000000001":    5,
		"queue-0000000001":              0, // no due time: due at once
		"queue-||0000000001":            0,
		"queue-|zz|0000000001":          0,
		"|5|":                           0, // Curator wants the first separator past index 0
	} {
		if got := parseDue(name); got != want {
			t.Errorf("parseDue(%q) = %d, want %d", name, got, want)
		}
	}
	items, _ := kindDelay.entries([]string{"queue-|00000009|0000000000", "queue-|00000005|0000000002", "queue-0000000003", "queue-|00000005|0000000001"})
	var order []string
	for _, e := range items {
		order = append(order, e.name)
	}
	want := []string{"queue-0000000003", "queue-|00000005|0000000001", "queue-|00000005|0000000002", "queue-|00000009|0000000000"}
	if !slices.Equal(order, want) {
		t.Errorf("delay order %v, want %v", order, want)
	}
}

// TestIDNames: Curator's makeIdPath, fixId and parseId, and the id queue's
// order by sequence.
func TestIDNames(t *testing.T) {
	if got := idPrefix("a/b|c"); got != "queue-|a_b_c|" {
		t.Errorf("idPrefix: %q", got)
	}
	id, cleaned, ok := parseID("queue-|order-7|0000000042")
	if !ok || id != "order-7" || cleaned != "queue-0000000042" {
		t.Errorf("parseID: %q %q %v", id, cleaned, ok)
	}
	if _, _, ok := parseID("queue-0000000042"); ok {
		t.Error("a name without separators has no id")
	}
	items, _ := kindID.entries([]string{"queue-|z|0000000002", "queue-|a|0000000003", "queue-|m|0000000001"})
	if items[0].name != "queue-|m|0000000001" || items[2].name != "queue-|a|0000000003" {
		t.Errorf("id order %v", items)
	}
}

// TestEntriesForeign: names without the kind's prefix are foreign.
func TestEntriesForeign(t *testing.T) {
	items, foreign := kindPlain.entries([]string{"queue-0000000002", "lock", "qn-0000000001", "queue-0000000001"})
	if len(items) != 2 || items[0].name != "queue-0000000001" || !slices.Equal(foreign, []string{"lock", "qn-0000000001"}) {
		t.Errorf("items %v, foreign %v", items, foreign)
	}
	items, foreign = kindSimple.entries([]string{"queue-0000000002", "qn-0000000001"})
	if len(items) != 1 || len(foreign) != 1 {
		t.Errorf("simple: items %v, foreign %v", items, foreign)
	}
}

// TestRequeuePrefix: a requeued item keeps its id, priority or due time,
// and its name never grows (CURATOR-56).
func TestRequeuePrefix(t *testing.T) {
	for name, want := range map[string]string{
		"queue-0000000042":          "queue-",
		"queue-|id|0000000042":      "queue-|id|",
		"queue-1000000070000000042": "queue-100000007",
		"queue-|0000AB|0000000042":  "queue-|0000AB|",
		"queue-oddball":             "queue-",
		"qn-0000000001":             "queue-",
	} {
		if got := kindPlain.requeuePrefix(name); got != want {
			t.Errorf("requeuePrefix(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestOrder: one consumer takes a listing in order; several first take
// the items of their stripe (sequence modulo their number), then the rest
// from an offset, and each item once.
func TestOrder(t *testing.T) {
	names := []string{"queue-0000000000", "queue-0000000001", "queue-0000000002", "queue-0000000003", "queue-0000000004"}
	items, _ := kindPlain.entries(names)
	if got := order(items, 0, 1, len(items)); !slices.Equal(got, items) {
		t.Errorf("one consumer: %v", got)
	}
	got := order(items, 1, 2, len(items))
	var seq []string
	for _, e := range got {
		seq = append(seq, e.name[len(e.name)-1:])
	}
	if !slices.Equal(seq, []string{"1", "3", "2", "4", "0"}) {
		t.Errorf("rank 1 of 2: %v", seq)
	}
	seq = nil
	for _, e := range order(items, 1, 2, 2) {
		seq = append(seq, e.name[len(e.name)-1:])
	}
	if !slices.Equal(seq, []string{"1", "0", "2", "3", "4"}) {
		t.Errorf("rank 1 of 2, window 2: %v", seq)
	}
}
