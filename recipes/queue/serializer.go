package queue

import (
	"encoding/binary"
	"fmt"
)

// Curator's ItemSerializer: the data of every item node of a
// DistributedQueue (and its id, priority and delay variants) is
//
//	int32 version 0x00010001
//	for each item: byte 0x01, int32 length, the item's bytes
//	byte 0x02
//
// all big-endian (Java's DataOutputStream). One node holds one item (Put)
// or several (PutMulti). Curator stops reading at the end marker and
// ignores anything after it; so does decodeItems.
const (
	formatVersion = 0x00010001
	opItem        = 0x01
	opEnd         = 0x02
)

// overhead is what the format adds to a node's items: the version, the end
// marker, and an opcode and a length per item.
func overhead(items int) int { return 4 + 1 + 5*items }

// encodeItems serializes items in Curator's format.
func encodeItems(items [][]byte) []byte {
	n := overhead(len(items))
	for _, it := range items {
		n += len(it)
	}
	b := make([]byte, 0, n)
	b = binary.BigEndian.AppendUint32(b, formatVersion)
	for _, it := range items {
		b = append(b, opItem)
		b = binary.BigEndian.AppendUint32(b, uint32(len(it)))
		b = append(b, it...)
	}
	return append(b, opEnd)
}

// decodeItems parses a node's data in Curator's format. The items returned
// share data's memory.
func decodeItems(data []byte) ([][]byte, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("%d bytes, too short for the format's version", len(data))
	}
	if v := binary.BigEndian.Uint32(data); v != formatVersion {
		return nil, fmt.Errorf("format version 0x%08x, want 0x%08x", v, formatVersion)
	}
	rest := data[4:]
	var items [][]byte
	for {
		if len(rest) == 0 {
			return nil, fmt.Errorf("no end marker after %d items", len(items))
		}
		op := rest[0]
		rest = rest[1:]
		switch op {
		case opEnd:
			return items, nil
		case opItem:
		default:
			return nil, fmt.Errorf("opcode 0x%02x after %d items, want 0x%02x or 0x%02x", op, len(items), opItem, opEnd)
		}
		if len(rest) < 4 {
			return nil, fmt.Errorf("item %d: no room for its length", len(items))
		}
		size := int64(int32(binary.BigEndian.Uint32(rest)))
		rest = rest[4:]
		if size < 0 || size > int64(len(rest)) {
			return nil, fmt.Errorf("item %d: length %d, %d bytes left", len(items), size, len(rest))
		}
		items = append(items, rest[:size:size])
		rest = rest[size:]
	}
}
