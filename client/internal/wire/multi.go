package wire

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Multi ops are go-zookeeper's request types, so code written for its Multi
// carries over: *zk.CreateRequest (sent as create2, so its result has the
// new node's Stat too), *zk.DeleteRequest, *zk.SetDataRequest and
// *zk.CheckVersionRequest; and CreateTTLOp for a node with a TTL.

// CreateTTLOp creates a TTL node inside a Multi (flags as for CreateTTL).
type CreateTTLOp struct {
	// Path is the node's absolute path.
	Path string
	// Data is the node's data.
	Data []byte
	// ACL is the node's ACL.
	ACL []zk.ACL
	// Flags is zk.FlagTTL or zk.FlagPersistentSequentialWithTTL.
	Flags int32
	// TTLms is the TTL in milliseconds.
	TTLms int64
}

// encodeMulti appends a multi request's body for ops, or fails on an op it
// does not know.
func encodeMulti(e *encoder, ops []any) error {
	for _, op := range ops {
		switch o := op.(type) {
		case *zk.CreateRequest:
			code := opCreate2
			if o.Flags == zk.FlagContainer {
				code = opCreateContainer
			}
			multiHeader(e, code)
			encodeCreate(e, o.Path, o.Data, o.Acl, o.Flags)
		case *CreateTTLOp:
			multiHeader(e, opCreateTTL)
			encodeCreateTTL(e, o.Path, o.Data, o.ACL, o.Flags, o.TTLms)
		case *zk.DeleteRequest:
			multiHeader(e, opDelete)
			encodePathVersion(e, o.Path, o.Version)
		case *zk.SetDataRequest:
			multiHeader(e, opSetData)
			encodeSetData(e, o.Path, o.Data, o.Version)
		case *zk.CheckVersionRequest:
			multiHeader(e, opCheck)
			encodePathVersion(e, o.Path, o.Version)
		default:
			return fmt.Errorf("zkrecipes: unknown transaction op %T", op)
		}
	}
	e.int32(-1) // the closing header: type -1, done, err -1
	e.bool(true)
	e.int32(-1)
	return nil
}

func multiHeader(e *encoder, code int32) {
	e.int32(code)
	e.bool(false)
	e.int32(-1)
}

// decodeMulti reads a multi reply's results, one for each of the ops sent;
// an op that failed (or was rolled back) has its Error set. More results
// than ops is a malformed reply: the slice is allocated once, bounded by
// ops and by what the frame can hold (a result takes 9 bytes at least).
func decodeMulti(d *decoder, ops int) []zk.MultiResponse {
	out := make([]zk.MultiResponse, 0, max(0, min(ops, d.left()/9)))
	for d.err == nil {
		typ, done, _ := d.int32(), d.bool(), d.int32()
		if done || d.err != nil {
			break
		}
		if len(out) == ops {
			d.fail("more results than the %d ops sent", ops)
			break
		}
		var r zk.MultiResponse
		switch typ {
		case opCreate:
			r.String = d.string()
		case opCreate2, opCreateTTL, opCreateContainer:
			r.String = d.string()
			r.Stat = d.stat()
		case opSetData:
			r.Stat = d.stat()
		case opDelete, opCheck:
		case opError:
			r.Error = codeError(d.int32())
		default:
			d.fail("unknown multi result type %d", typ)
		}
		out = append(out, r)
	}
	return out
}
