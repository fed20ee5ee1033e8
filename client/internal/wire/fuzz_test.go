package wire

// Fuzz targets for the jute decoders. Each checks, for any input:
//   - the decoder never panics and never reads past its input;
//   - a failure wraps ErrMalformed;
//   - a success re-encodes (with the package's encoder) to a prefix of the
//     input (a null string or vector, -1 on the wire, comes back as an empty
//     one, 0 on the wire: fzSamePrefix allows exactly that);
//   - decoded buffers are copies (the reader reuses its frame buffer);
//   - the bytes allocated stay within fzAllocBound(len(input)), so a hostile
//     length or count cannot make a decoder allocate past its frame.
//
// Run one with, e.g.:
//
//	go test -run XXX -fuzz FuzzMulti -fuzztime 20s ./client/internal/wire/

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"
)

// fzAllocBound is the most a decode of n input bytes may allocate.
func fzAllocBound(n int) uint64 { return 8*uint64(n) + 4<<10 }

// fzAllocated returns the bytes f allocates. Other goroutines of the test
// binary allocate too, so it measures up to three times and keeps the least.
func fzAllocated(f func()) uint64 {
	best := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
		if best <= 4<<10 {
			break
		}
	}
	return best
}

func fzCheckAllocs(t *testing.T, what string, in []byte, f func()) {
	t.Helper()
	if got, bound := fzAllocated(f), fzAllocBound(len(in)); got > bound {
		t.Fatalf("%s: allocated %d bytes for %d input bytes (bound %d)", what, got, len(in), bound)
	}
}

// fzSamePrefix reports whether enc is a prefix of in, where a 4-byte 0
// (an empty string, buffer or vector re-encoded) may stand for a 4-byte -1
// (null) in the input.
func fzSamePrefix(enc, in []byte) bool {
	if len(enc) > len(in) {
		return false
	}
	null := []byte{0xff, 0xff, 0xff, 0xff}
	zero := []byte{0, 0, 0, 0}
	for i := 0; i < len(enc); {
		if enc[i] == in[i] {
			i++
			continue
		}
		ok := false
		for j := max(0, i-3); j <= i && j+4 <= len(enc); j++ {
			if bytes.Equal(enc[j:j+4], zero) && bytes.Equal(in[j:j+4], null) {
				i, ok = j+4, true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func fzCheckErr(t *testing.T, what string, d *decoder, err error) {
	t.Helper()
	if d != nil && (d.off < 0 || d.off > len(d.b)) {
		t.Fatalf("%s: offset %d outside the input's %d bytes", what, d.off, len(d.b))
	}
	if err != nil && !errors.Is(err, ErrMalformed) {
		t.Fatalf("%s: error %v does not wrap ErrMalformed", what, err)
	}
}

// ---- seed building ----

// fzRec builds a record and remembers where its length and count fields are,
// for the corrupted seeds.
type fzRec struct {
	e    encoder
	lens []int
}

func (r *fzRec) mark()            { r.lens = append(r.lens, len(r.e.b)) }
func (r *fzRec) str(s string)     { r.mark(); r.e.string(s) }
func (r *fzRec) buf(b []byte)     { r.mark(); r.e.buffer(b) }
func (r *fzRec) stat(st *zk.Stat) { fzEncodeStat(&r.e, st) }

func (r *fzRec) strs(v []string) {
	r.mark()
	r.e.int32(int32(len(v)))
	for _, s := range v {
		r.str(s)
	}
}

func (r *fzRec) acls(v []zk.ACL) {
	r.mark()
	r.e.int32(int32(len(v)))
	for _, a := range v {
		r.e.int32(a.Perms)
		r.str(a.Scheme)
		r.str(a.ID)
	}
}

// fzEncodeStat encodes a Stat as the server does (the package sends none).
func fzEncodeStat(e *encoder, st *zk.Stat) {
	e.int64(st.Czxid)
	e.int64(st.Mzxid)
	e.int64(st.Ctime)
	e.int64(st.Mtime)
	e.int32(st.Version)
	e.int32(st.Cversion)
	e.int32(st.Aversion)
	e.int64(st.EphemeralOwner)
	e.int32(st.DataLength)
	e.int32(st.NumChildren)
	e.int64(st.Pzxid)
}

var fzStat = &zk.Stat{
	Czxid: 0x100000002, Mzxid: 0x100000003, Ctime: 1700000000000, Mtime: 1700000000001,
	Version: 3, Cversion: 2, Aversion: 1, EphemeralOwner: 0x1234, DataLength: 5,
	NumChildren: 2, Pzxid: 0x100000004,
}

// fzVariants returns b, every prefix of it (or a spread of them for a long
// b), b with each length field set to hostile values, and b with junk after it.
func fzVariants(b []byte, lens []int) [][]byte {
	out := [][]byte{b, append(append([]byte{}, b...), 0xde, 0xad, 0xbe, 0xef)}
	step := max(1, len(b)/64)
	for n := 0; n < len(b); n += step {
		out = append(out, append([]byte{}, b[:n]...))
	}
	for _, off := range lens {
		left := int32(len(b) - off - 4)
		for _, v := range []int32{-1, -2, -0x80000000, 0x7ffffff0, 0x7fffffff, left, left + 1, left/4 + 1, left / 12 * 2} {
			c := append([]byte{}, b...)
			binary.BigEndian.PutUint32(c[off:], uint32(v))
			out = append(out, c)
		}
	}
	return out
}

func fzAddSeeds(f *testing.F, bs [][]byte) {
	for _, b := range bs {
		f.Add(b)
	}
}

// ---- connect response ----

func fzConnectResponse(passwd []byte, readOnly *bool) fzRec {
	var r fzRec
	r.e.int32(0)
	r.e.int32(2000)
	r.e.int64(0x1234)
	r.buf(passwd)
	if readOnly != nil {
		r.e.bool(*readOnly)
	}
	return r
}

func FuzzConnectResponse(f *testing.F) {
	t, fl := true, false
	for _, r := range []fzRec{
		fzConnectResponse(bytes.Repeat([]byte{7}, 16), &fl),
		fzConnectResponse(bytes.Repeat([]byte{7}, 16), &t),
		fzConnectResponse(bytes.Repeat([]byte{7}, 16), nil), // before 3.4: no readOnly
		fzConnectResponse(nil, &fl),
		fzConnectResponse([]byte{}, &fl),
	} {
		fzAddSeeds(f, fzVariants(r.e.b, r.lens))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		b := append([]byte{}, in...)
		var r connectResponse
		var err error
		fzCheckAllocs(t, "decodeConnectResponse", b, func() { r, err = decodeConnectResponse(b) })
		fzCheckErr(t, "decodeConnectResponse", nil, err)
		if err != nil {
			return
		}
		var e encoder
		e.int32(r.protocolVersion)
		e.int32(r.timeoutMs)
		e.int64(r.sessionID)
		e.buffer(r.passwd)
		if len(e.b) > len(b) || !bytes.Equal(e.b, b[:len(e.b)]) { // a null passwd stays null
			t.Fatalf("re-encoded %x is not a prefix of %x", e.b, b)
		}
		switch {
		case len(b) == len(e.b):
			if r.readOnly {
				t.Fatal("readOnly set with no byte for it")
			}
		case r.readOnly != (b[len(e.b)] != 0):
			t.Fatalf("readOnly %v from byte %#x", r.readOnly, b[len(e.b)])
		}
		if len(r.passwd) > 0 {
			want := append([]byte{}, r.passwd...)
			for i := range b {
				b[i] ^= 0xff
			}
			if !bytes.Equal(r.passwd, want) {
				t.Fatal("passwd aliases the frame")
			}
		}
	})
}

// ---- reply header and watcher event ----

func fzNotification(xid int32, typ, state int32, path string) fzRec {
	var r fzRec
	r.e.int32(xid)
	r.e.int64(0x100000007)
	r.e.int32(0)
	r.e.int32(typ)
	r.e.int32(state)
	r.str(path)
	return r
}

func FuzzReplyHeaderAndWatcherEvent(f *testing.F) {
	for _, r := range []fzRec{
		fzNotification(xidNotification, int32(zk.EventNodeDataChanged), int32(zk.StateSyncConnected), "/a/b"),
		fzNotification(xidNotification, int32(zk.EventNodeChildrenChanged), int32(zk.StateSyncConnected), ""),
		fzNotification(xidNotification, int32(zk.EventNodeDeleted), 3, string(bytes.Repeat([]byte("x"), 300))),
		fzNotification(xidPing, 0, 0, "/"),
		fzNotification(7, -101, 0, "/x"),
	} {
		fzAddSeeds(f, fzVariants(r.e.b, r.lens))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		b := append([]byte{}, in...)
		d := decoder{b: b}
		var h replyHeader
		var ev watcherEvent
		fzCheckAllocs(t, "decodeReplyHeader+decodeWatcherEvent", b, func() {
			d = decoder{b: b}
			h = decodeReplyHeader(&d)
			ev = decodeWatcherEvent(&d)
		})
		fzCheckErr(t, "reply header", &d, d.end())
		if d.err != nil {
			// It may fail only on a short input or a bad path length.
			if len(b) >= replyHeaderLen+12 {
				n := int32(binary.BigEndian.Uint32(b[replyHeaderLen+8:]))
				if n == -1 || (n >= 0 && int(n) <= len(b)-replyHeaderLen-12) {
					t.Fatalf("failed on a well-formed record: %v", d.err)
				}
			}
			return
		}
		var e encoder
		e.int32(h.xid)
		e.int64(h.zxid)
		e.int32(h.err)
		if len(e.b) != replyHeaderLen {
			t.Fatalf("reply header re-encodes to %d bytes", len(e.b))
		}
		e.int32(ev.typ)
		e.int32(ev.state)
		e.string(ev.path)
		if d.off != len(e.b) {
			t.Fatalf("consumed %d bytes, the record re-encodes to %d", d.off, len(e.b))
		}
		if !fzSamePrefix(e.b, b) {
			t.Fatalf("re-encoded %x is not a prefix of %x", e.b, b)
		}
	})
}

// ---- multi ----

type fzMultiItem struct {
	typ  int32
	path string
	stat *zk.Stat
	code int32
}

func fzMulti(items []fzMultiItem, closing bool) fzRec {
	var r fzRec
	for _, it := range items {
		r.e.int32(it.typ)
		r.e.bool(false)
		r.e.int32(-1)
		switch it.typ {
		case opCreate:
			r.str(it.path)
		case opCreate2, opCreateTTL, opCreateContainer:
			r.str(it.path)
			r.stat(it.stat)
		case opSetData:
			r.stat(it.stat)
		case opError:
			r.e.int32(it.code)
		}
	}
	if closing {
		r.e.int32(-1)
		r.e.bool(true)
		r.e.int32(-1)
	}
	return r
}

// fzMultiLargeDeletes is a well-formed multi reply of n delete results.
func fzMultiLargeDeletes(n int) []byte {
	items := make([]fzMultiItem, n)
	for i := range items {
		items[i].typ = opDelete
	}
	r := fzMulti(items, true)
	return r.e.b
}

// fzMultiBody re-encodes result r as the body of a result of type typ.
func fzMultiBody(t *testing.T, typ int32, r zk.MultiResponse) []byte {
	var e encoder
	switch typ {
	case opCreate:
		e.string(r.String)
	case opCreate2, opCreateTTL, opCreateContainer:
		e.string(r.String)
		fzEncodeStat(&e, r.Stat)
	case opSetData:
		fzEncodeStat(&e, r.Stat)
	case opDelete, opCheck:
	case opError:
		code := int32(0)
		if r.Error != nil {
			var ce CodeError
			if errors.As(r.Error, &ce) {
				code = int32(ce)
			} else {
				code = 1 // not a code: fails the compare below unless mapped
				for k, v := range codeErrors {
					if v == r.Error {
						code = k
						break
					}
				}
			}
		}
		e.int32(code)
	default:
		t.Fatalf("result of unknown type %d decoded without error", typ)
	}
	return e.b
}

// TestDecodeMultiAllocationBounded: a well-formed multi reply of many small
// results (a delete's is its 9-byte header alone) once made decodeMulti
// allocate ~27x the frame (28 MB for a 1 MiB frame): out grew by append,
// one 40-byte zk.MultiResponse for each 9 input bytes. It now allocates out
// once, bounded by the ops sent, and refuses more results than that.
func TestDecodeMultiAllocationBounded(t *testing.T) {
	n := (DefaultMaxFrame - 9) / 9 // as many delete results as one frame holds
	b := fzMultiLargeDeletes(n)
	var out []zk.MultiResponse
	var d decoder
	got := fzAllocated(func() { d = decoder{b: b}; out = decodeMulti(&d, n) })
	if d.err != nil || len(out) != n {
		t.Fatalf("decodeMulti: %d results, %v", len(out), d.err)
	}
	if bound := fzAllocBound(len(b)); got > bound {
		t.Errorf("decodeMulti allocated %d bytes (%.1fx) for a %d-byte frame of %d delete results; bound 8x + 4 KiB = %d",
			got, float64(got)/float64(len(b)), len(b), n, bound)
	}
	d = decoder{b: b}
	if out := decodeMulti(&d, 1); d.err == nil || len(out) > 1 {
		t.Fatalf("a reply of %d results to one op: %d results, %v", n, len(out), d.err)
	}
}

func FuzzMulti(f *testing.F) {
	st := fzStat
	seeds := []fzRec{
		fzMulti([]fzMultiItem{{typ: opCreate, path: "/a"}, {typ: opDelete}}, true),
		fzMulti([]fzMultiItem{{typ: opCreate2, path: "/b", stat: st}, {typ: opSetData, stat: st}, {typ: opCheck}}, true),
		fzMulti([]fzMultiItem{{typ: opCreateTTL, path: "/t", stat: st}, {typ: opCreateContainer, path: "/c", stat: st}}, true),
		fzMulti([]fzMultiItem{{typ: opError, code: 0}, {typ: opError, code: -101}, {typ: opError, code: -2}}, true),
		fzMulti([]fzMultiItem{{typ: opError, code: -6}, {typ: opError, code: -121}, {typ: opError, code: -999}}, true),
		fzMulti([]fzMultiItem{{typ: opDelete}}, false), // no closing header
		fzMulti([]fzMultiItem{{typ: 99}}, true),        // unknown result type
		fzMulti(nil, true),
	}
	for _, r := range seeds {
		fzAddSeeds(f, fzVariants(r.e.b, r.lens))
	}
	// A large well-formed reply: allocation must stay bounded for it too.
	f.Add(fzMultiLargeDeletes(2000))
	f.Fuzz(func(t *testing.T, in []byte) {
		b := append([]byte{}, in...)
		var d decoder
		var out []zk.MultiResponse
		got := fzAllocated(func() {
			d = decoder{b: b}
			out = decodeMulti(&d, len(b)/9+1)
		})
		if bound := fzAllocBound(len(b)); got > bound {
			t.Fatalf("decodeMulti: allocated %d bytes for %d input bytes and %d results (bound %d)", got, len(b), len(out), bound)
		}
		fzCheckErr(t, "decodeMulti", &d, d.end())
		if d.err != nil {
			return
		}
		// Walk the input with the results: each is a header (type, done
		// false, err) and the body its type calls for; then the closing
		// header (done true).
		off := 0
		for i, r := range out {
			if off+9 > len(b) {
				t.Fatalf("result %d: header past the input", i)
			}
			typ := int32(binary.BigEndian.Uint32(b[off:]))
			if b[off+4] != 0 {
				t.Fatalf("result %d: decoded from a done header", i)
			}
			off += 9
			body := fzMultiBody(t, typ, r)
			if !fzSamePrefix(body, b[off:]) {
				t.Fatalf("result %d (type %d): re-encoded %x, input %x", i, typ, body, b[off:])
			}
			off += len(body)
		}
		if off+9 > len(b) || b[off+4] == 0 {
			t.Fatalf("no closing header at byte %d of %x", off, b)
		}
		if d.off != off+9 {
			t.Fatalf("consumed %d bytes, the results re-encode to %d", d.off, off+9)
		}
	})
}

// ---- stat, strings, acls, buffer ----

func FuzzStatStringsACLs(f *testing.F) {
	full := func(st *zk.Stat, ss []string, acl []zk.ACL, buf []byte) fzRec {
		var r fzRec
		r.stat(st)
		r.strs(ss)
		r.acls(acl)
		r.buf(buf)
		return r
	}
	seeds := []fzRec{
		full(fzStat, []string{"a", "bb", ""}, zk.WorldACL(zk.PermAll), []byte("data")),
		full(&zk.Stat{}, nil, nil, nil),
		full(fzStat, []string{}, []zk.ACL{{Perms: 1, Scheme: "digest", ID: "u:x"}, {Perms: 31, Scheme: "ip", ID: "10.0.0.1"}}, []byte{}),
		full(fzStat, []string{string(bytes.Repeat([]byte("n"), 1000))}, nil, bytes.Repeat([]byte{1}, 2000)),
	}
	for _, r := range seeds {
		fzAddSeeds(f, fzVariants(r.e.b, r.lens))
	}
	// Each decoder alone, at the start of the input.
	var r fzRec
	r.strs([]string{"x", "y"})
	fzAddSeeds(f, fzVariants(r.e.b, r.lens))
	r = fzRec{}
	r.acls(zk.WorldACL(zk.PermRead))
	fzAddSeeds(f, fzVariants(r.e.b, r.lens))
	r = fzRec{}
	r.buf([]byte("hello"))
	fzAddSeeds(f, fzVariants(r.e.b, r.lens))
	// Counts that only the minimum item size can refuse.
	for _, n := range []int32{1 << 20, 0x7fffffff, 1000} {
		var e encoder
		e.int32(n)
		e.b = append(e.b, make([]byte, 3000)...)
		f.Add(e.b)
	}

	f.Fuzz(func(t *testing.T, in []byte) {
		b := append([]byte{}, in...)

		// stat alone.
		var st *zk.Stat
		d := decoder{b: b}
		fzCheckAllocs(t, "stat", b, func() { d = decoder{b: b}; st = d.stat() })
		fzCheckErr(t, "stat", &d, d.end())
		if d.err == nil {
			var e encoder
			fzEncodeStat(&e, st)
			if d.off != statLen || len(e.b) != statLen || !bytes.Equal(e.b, b[:statLen]) {
				t.Fatalf("stat: consumed %d, re-encoded %x from %x", d.off, e.b, b)
			}
		} else if len(b) >= statLen || st != nil {
			t.Fatalf("stat failed on %d bytes (%v), or returned %v with its error", len(b), d.err, st)
		}

		// strings alone.
		var ss []string
		fzCheckAllocs(t, "strings", b, func() { d = decoder{b: b}; ss = d.strings() })
		fzCheckErr(t, "strings", &d, d.end())
		if d.err == nil {
			var e encoder
			e.strings(ss)
			if d.off != len(e.b) || !fzSamePrefix(e.b, b) {
				t.Fatalf("strings: consumed %d, re-encoded %x from %x", d.off, e.b, b)
			}
		}

		// names alone: what strings reads, in one allocation for the
		// names.
		var ns []string
		dn := decoder{b: b}
		fzCheckAllocs(t, "names", b, func() { dn = decoder{b: b}; ns = dn.names() })
		fzCheckErr(t, "names", &dn, dn.end())
		if (dn.err == nil) != (d.err == nil) || (d.err == nil && (dn.off != d.off || !slices.Equal(ns, ss))) {
			t.Fatalf("names %q (%v, at %d) differ from strings %q (%v, at %d)", ns, dn.err, dn.off, ss, d.err, d.off)
		}

		// statInto reads what stat reads.
		var sv zk.Stat
		ds, di := decoder{b: b}, decoder{b: b}
		sp := ds.stat()
		di.statInto(&sv)
		if (ds.err == nil) != (di.err == nil) || (ds.err == nil && (*sp != sv || ds.off != di.off)) || (di.err != nil && sv != zk.Stat{}) {
			t.Fatalf("statInto %+v (%v) differs from stat %+v (%v)", sv, di.err, sp, ds.err)
		}

		// acls alone.
		var acl []zk.ACL
		fzCheckAllocs(t, "acls", b, func() { d = decoder{b: b}; acl = d.acls() })
		fzCheckErr(t, "acls", &d, d.end())
		if d.err == nil {
			var e encoder
			e.acls(acl)
			if d.off != len(e.b) || !fzSamePrefix(e.b, b) {
				t.Fatalf("acls: consumed %d, re-encoded %x from %x", d.off, e.b, b)
			}
		}

		// buffer alone, and that it is a copy.
		var buf []byte
		fzCheckAllocs(t, "buffer", b, func() { d = decoder{b: b}; buf = d.buffer() })
		fzCheckErr(t, "buffer", &d, d.end())
		if d.err == nil {
			var e encoder
			e.buffer(buf)
			if d.off != len(e.b) || !bytes.Equal(e.b, b[:len(e.b)]) {
				t.Fatalf("buffer: consumed %d, re-encoded %x from %x", d.off, e.b, b)
			}
			if len(buf) > 0 {
				want := append([]byte{}, buf...)
				c := append([]byte{}, b...)
				for i := range b {
					b[i] ^= 0xff
				}
				if !bytes.Equal(buf, want) {
					t.Fatal("buffer aliases the frame")
				}
				copy(b, c)
			}
		}

		// All four in a row, as a reply of several records reads them.
		fzCheckAllocs(t, "stat+strings+acls+buffer", b, func() {
			d = decoder{b: b}
			st, ss, acl, buf = d.stat(), d.strings(), d.acls(), d.buffer()
		})
		fzCheckErr(t, "stat+strings+acls+buffer", &d, d.end())
		if d.err == nil {
			var e encoder
			fzEncodeStat(&e, st)
			e.strings(ss)
			e.acls(acl)
			e.buffer(buf)
			if d.off != len(e.b) || !fzSamePrefix(e.b, b) {
				t.Fatalf("stat+strings+acls+buffer: consumed %d, re-encoded %x from %x", d.off, e.b, b)
			}
		}
	})
}

// ---- the reader's frames ----

// fzChunks reads its data in pieces whose sizes cut gives in turn (1 to
// 256 bytes each; 1 when cut is empty), as a socket may hand them over.
type fzChunks struct {
	b, cut []byte
	i      int
}

func (c *fzChunks) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.cut) > 0 {
		n = int(c.cut[c.i%len(c.cut)]) + 1
		c.i++
	}
	n = min(n, len(p), len(c.b))
	copy(p, c.b)
	c.b = c.b[n:]
	return n, nil
}

// fzFrameEnd classes a frame reader's last error: the stream was cut (EOF,
// or mid-frame), or a frame's length was out of bounds.
func fzFrameEnd(err error) string {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "cut"
	case errors.Is(err, ErrMalformed) && errors.Is(err, errFrameBound):
		return "bound"
	}
	return "other: " + err.Error()
}

// FuzzFrameReader: the link's buffered frameReader returns, from any
// stream however it arrives, the frames readFrame (one frame at a time,
// straight from the stream) returns, and ends the same way.
func FuzzFrameReader(f *testing.F) {
	frames := func(bodies ...[]byte) []byte {
		var out []byte
		for _, b := range bodies {
			out = append(out, fakeFrame(b)...)
		}
		return out
	}
	big := bytes.Repeat([]byte("b"), readBufSize+100)
	for _, s := range [][]byte{
		frames([]byte("one"), []byte("two"), nil, []byte("three")),
		frames(big, []byte("after")),
		frames([]byte("x"), big, big[:readBufSize-4], []byte("y")),
		frames([]byte("whole"))[:7],       // cut mid-frame
		append(frames([]byte("a")), 0x80), // cut mid-length
		append(frames([]byte("a")), 0xff, 0xff, 0xff, 0xf0),
		append(frames([]byte("a")), 0x7f, 0xff, 0xff, 0xf0),
	} {
		for _, cut := range [][]byte{nil, {0}, {255}, {3, 200, 17}} {
			f.Add(s, cut, uint16(64<<10>>2))
		}
	}
	f.Fuzz(func(t *testing.T, stream, cut []byte, bound uint16) {
		maxFrame := int(bound) << 2 // up to 256 KiB: past the reader's buffer
		var want [][]byte
		var wantErr error
		br := bytes.NewReader(stream)
		for {
			body, err := readFrame(br, nil, maxFrame)
			if err != nil {
				wantErr = err
				break
			}
			want = append(want, body)
		}
		fr := &frameReader{r: &fzChunks{b: stream, cut: cut}, buf: make([]byte, readBufSize)}
		var got [][]byte
		var gotErr error
		for {
			body, err := fr.next(maxFrame)
			if err != nil {
				gotErr = err
				break
			}
			got = append(got, append([]byte{}, body...)) // valid until the next call
		}
		if len(got) != len(want) {
			t.Fatalf("%d frames, readFrame reads %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("frame %d: %q, readFrame reads %q", i, got[i], want[i])
			}
		}
		if g, w := fzFrameEnd(gotErr), fzFrameEnd(wantErr); g != w {
			t.Fatalf("ends with %v (%s), readFrame with %v (%s)", gotErr, g, wantErr, w)
		}
	})
}
