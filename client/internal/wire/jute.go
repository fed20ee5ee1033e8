package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// The jute codec: ZooKeeper's record encoding (zookeeper.jute). Every
// integer is big-endian; a buffer or string is an int length (-1 for null)
// and its bytes; a vector is an int count (-1 for null) and its items.

// ErrMalformed is wrapped by every error a decoder returns for bytes that
// are not the record expected: a length past the frame's end, a negative
// count, a truncated field, bytes left over.
var ErrMalformed = errors.New("zkrecipes: malformed frame from the server")

// encoder appends records to b.
type encoder struct{ b []byte }

func (e *encoder) int32(v int32) { e.b = binary.BigEndian.AppendUint32(e.b, uint32(v)) }
func (e *encoder) int64(v int64) { e.b = binary.BigEndian.AppendUint64(e.b, uint64(v)) }

func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// buffer writes a jute buffer; a nil slice is written as null (-1), as the
// Java client writes a null byte[].
func (e *encoder) buffer(v []byte) {
	if v == nil {
		e.int32(-1)
		return
	}
	e.int32(int32(len(v)))
	e.b = append(e.b, v...)
}

func (e *encoder) string(v string) {
	e.int32(int32(len(v)))
	e.b = append(e.b, v...)
}

func (e *encoder) strings(v []string) {
	e.int32(int32(len(v)))
	for _, s := range v {
		e.string(s)
	}
}

func (e *encoder) acls(v []zk.ACL) {
	e.int32(int32(len(v)))
	for _, a := range v {
		e.int32(a.Perms)
		e.string(a.Scheme)
		e.string(a.ID)
	}
}

// decoder reads records from one frame's body. The first error sticks: every
// later read returns zero values, and err reports it. No read allocates more
// than the bytes still left in the frame can justify, so a hostile length
// or count cannot make it allocate past the frame.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d of %d", ErrMalformed, fmt.Sprintf(format, args...), d.off, len(d.b))
	}
}

func (d *decoder) left() int { return len(d.b) - d.off }

func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > d.left() {
		d.fail("%s of %d bytes past the frame's end", what, n)
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *decoder) int32() int32 {
	p := d.take(4, "int")
	if p == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(p))
}

func (d *decoder) int64() int64 {
	p := d.take(8, "long")
	if p == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(p))
}

func (d *decoder) bool() bool {
	p := d.take(1, "bool")
	return p != nil && p[0] != 0
}

// buffer returns a copy of a jute buffer (nil for null).
func (d *decoder) buffer() []byte {
	n := d.int32()
	if d.err != nil || n == -1 {
		return nil
	}
	if n < -1 {
		d.fail("negative buffer length %d", n)
		return nil
	}
	p := d.take(int(n), "buffer")
	if p == nil {
		return nil
	}
	return append([]byte{}, p...)
}

func (d *decoder) string() string {
	n := d.int32()
	if d.err != nil || n == -1 {
		return ""
	}
	if n < -1 {
		d.fail("negative string length %d", n)
		return ""
	}
	return string(d.take(int(n), "string"))
}

// count reads a vector's count, refusing one that the rest of the frame
// cannot hold at minItem bytes an item. A null vector counts 0.
func (d *decoder) count(minItem int) int {
	n := d.int32()
	if d.err != nil || n == -1 {
		return 0
	}
	if n < -1 || int64(n)*int64(minItem) > int64(d.left()) {
		d.fail("vector of %d items past the frame's end", n)
		return 0
	}
	return int(n)
}

func (d *decoder) strings() []string {
	n := d.count(4)
	if n == 0 {
		return []string{}
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.string())
		if d.err != nil {
			return nil
		}
	}
	return out
}

func (d *decoder) acls() []zk.ACL {
	n := d.count(12)
	out := make([]zk.ACL, 0, n)
	for range n {
		out = append(out, zk.ACL{Perms: d.int32(), Scheme: d.string(), ID: d.string()})
		if d.err != nil {
			return nil
		}
	}
	return out
}

// names reads a vector of strings as strings() does, into one allocation
// for all of them (each name a substring of it) besides the slice.
func (d *decoder) names() []string {
	n := d.count(4)
	if n == 0 {
		return []string{}
	}
	start := d.off
	for range n { // check every length first, then copy once
		l := d.int32()
		if d.err == nil && l < -1 {
			d.fail("negative string length %d", l)
		}
		if l > 0 {
			d.take(int(l), "string")
		}
		if d.err != nil {
			return nil
		}
	}
	block := string(d.b[start:d.off])
	out := make([]string, 0, n)
	for off := 0; len(out) < n; {
		l := int(int32(uint32(block[off])<<24 | uint32(block[off+1])<<16 | uint32(block[off+2])<<8 | uint32(block[off+3])))
		off += 4
		if l <= 0 { // -1: null, read as ""
			out = append(out, "")
			continue
		}
		out = append(out, block[off:off+l])
		off += l
	}
	return out
}

// statLen is a Stat's size on the wire.
const statLen = 68

func (d *decoder) stat() *zk.Stat {
	if d.err == nil && d.left() < statLen {
		d.fail("stat of %d bytes past the frame's end", statLen)
	}
	if d.err != nil {
		return nil
	}
	return &zk.Stat{
		Czxid: d.int64(), Mzxid: d.int64(), Ctime: d.int64(), Mtime: d.int64(),
		Version: d.int32(), Cversion: d.int32(), Aversion: d.int32(),
		EphemeralOwner: d.int64(), DataLength: d.int32(), NumChildren: d.int32(),
		Pzxid: d.int64(),
	}
}

// statInto reads a Stat into st, leaving it as it was on an error.
func (d *decoder) statInto(st *zk.Stat) {
	if d.err == nil && d.left() < statLen {
		d.fail("stat of %d bytes past the frame's end", statLen)
	}
	if d.err != nil {
		return
	}
	*st = zk.Stat{
		Czxid: d.int64(), Mzxid: d.int64(), Ctime: d.int64(), Mtime: d.int64(),
		Version: d.int32(), Cversion: d.int32(), Aversion: d.int32(),
		EphemeralOwner: d.int64(), DataLength: d.int32(), NumChildren: d.int32(),
		Pzxid: d.int64(),
	}
}

// end reports the first error. Bytes left after the record are not one:
// a newer server may append fields an older client does not know, as the
// Java client's decoder allows.
func (d *decoder) end() error { return d.err }
