package faultlink

import "encoding/binary"

// ZooKeeper request opcodes, as they appear in the request header of the
// client-to-server protocol. Tests use them with Link.Requests and
// Link.DropReplyTo.
const (
	OpCreate          int32 = 1
	OpDelete          int32 = 2
	OpExists          int32 = 3
	OpGetData         int32 = 4
	OpSetData         int32 = 5
	OpGetChildren     int32 = 8
	OpSync            int32 = 9
	OpPing            int32 = 11
	OpGetChildren2    int32 = 12
	OpCheck           int32 = 13
	OpMulti           int32 = 14
	OpCreate2         int32 = 15
	OpCreateContainer int32 = 19
	OpCreateTTL       int32 = 21
	OpClose           int32 = -11
	OpSetAuth         int32 = 100
	OpSetWatches      int32 = 101
	OpSetWatches2     int32 = 105
	OpAddWatch        int32 = 106
)

// frame is one complete request seen in the client's byte stream: its
// opcode and the offset just past its last byte in the buffer being parsed.
type frame struct {
	op  int32
	end int
}

// frameParser follows the client-to-server byte stream across writes. Each
// frame is a 4-byte big-endian length and that many bytes; the first frame of
// a connection is the connect request, and every later one starts with xid
// and opcode (both int32). Only the 12 header bytes are kept; the rest of a
// frame is skipped as it passes.
type frameParser struct {
	hdr       [12]byte
	hdrN      int   // header bytes collected for the current frame
	left      int64 // bytes of the current frame still to skip after its header
	connected bool  // the connect request has passed
	broken    bool  // the stream made no sense: stop parsing
}

// feed parses b, appends the requests it completes to out and returns out.
func (p *frameParser) feed(b []byte, out []frame) []frame {
	i := 0
	for i < len(b) && !p.broken {
		if p.hdrN < 4 {
			n := copy(p.hdr[p.hdrN:4], b[i:])
			p.hdrN += n
			i += n
			if p.hdrN < 4 {
				break
			}
			size := int32(binary.BigEndian.Uint32(p.hdr[:4]))
			switch {
			case size < 0, p.connected && size < 8:
				p.broken = true
				return out
			case p.connected:
				p.left = int64(size) - 8
			default:
				p.left = int64(size)
			}
		}
		if p.connected && p.hdrN < 12 {
			n := copy(p.hdr[p.hdrN:12], b[i:])
			p.hdrN += n
			i += n
			if p.hdrN < 12 {
				break
			}
		}
		skip := min(p.left, int64(len(b)-i))
		i += int(skip)
		p.left -= skip
		if p.left > 0 {
			break
		}
		if p.connected {
			out = append(out, frame{op: int32(binary.BigEndian.Uint32(p.hdr[8:12])), end: i})
		} else {
			p.connected = true
		}
		p.hdrN = 0
	}
	return out
}
