package queue

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// TestItemFormat: Curator's ItemSerializer bytes, exactly.
func TestItemFormat(t *testing.T) {
	got := encodeItems([][]byte{[]byte("ab"), {}})
	want, _ := hex.DecodeString("00010001" + "01" + "00000002" + "6162" + "01" + "00000000" + "02")
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded % x, want % x", got, want)
	}
	items, err := decodeItems(append(got, 0xff, 0xfe)) // Curator ignores what follows the end marker
	if err != nil || len(items) != 2 || string(items[0]) != "ab" || len(items[1]) != 0 {
		t.Fatalf("decoded %q, %v", items, err)
	}
}

// TestItemFormatCorrupt: data that is not in the format is an error, never
// a panic.
func TestItemFormatCorrupt(t *testing.T) {
	for _, h := range []string{"", "0001", "00010002" + "02", "00010001", "00010001" + "03", "00010001" + "01" + "0000",
		"00010001" + "01" + "00000005" + "61", "00010001" + "01" + "ffffffff" + "61" + "02"} {
		data, _ := hex.DecodeString(h)
		if _, err := decodeItems(data); err == nil {
			t.Errorf("%s: no error", h)
		}
	}
}

// FuzzDecodeItems: decoding never panics, and what encodes decodes back.
func FuzzDecodeItems(f *testing.F) {
	f.Add(encodeItems([][]byte{[]byte("x")}))
	f.Add([]byte{0, 1, 0, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		items, err := decodeItems(data)
		if err != nil {
			return
		}
		again, err := decodeItems(encodeItems(items))
		if err != nil || len(again) != len(items) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range items {
			if !bytes.Equal(items[i], again[i]) {
				t.Fatalf("item %d changed", i)
			}
		}
	})
}
