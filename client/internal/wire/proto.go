package wire

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Opcodes (ZooDefs.OpCode).
const (
	opCreate               int32 = 1
	opDelete               int32 = 2
	opExists               int32 = 3
	opGetData              int32 = 4
	opSetData              int32 = 5
	opGetACL               int32 = 6
	opSetACL               int32 = 7
	opGetChildren          int32 = 8
	opSync                 int32 = 9
	opPing                 int32 = 11
	opGetChildren2         int32 = 12
	opCheck                int32 = 13
	opMulti                int32 = 14
	opCreate2              int32 = 15
	opRemoveWatches        int32 = 18
	opCreateContainer      int32 = 19
	opCreateTTL            int32 = 21
	opAuth                 int32 = 100
	opSetWatches           int32 = 101
	opGetEphemerals        int32 = 103
	opGetAllChildrenNumber int32 = 104
	opSetWatches2          int32 = 105
	opAddWatch             int32 = 106
	opWhoAmI               int32 = 107
	opCloseSession         int32 = -11
	opError                int32 = -1
)

// Special xids.
const (
	xidNotification int32 = -1
	xidPing         int32 = -2
	xidAuth         int32 = -4
	xidSetWatches   int32 = -8
)

// Watch event types beyond go-zookeeper's (zk.EventType values).
const (
	eventDataWatchRemoved       zk.EventType = 5
	eventChildWatchRemoved      zk.EventType = 6
	eventPersistentWatchRemoved zk.EventType = 7
)

// AddWatch modes.
const (
	// AddWatchPersistent is a data and child watch on one node that stays
	// until removed.
	AddWatchPersistent int32 = 0
	// AddWatchPersistentRecursive watches a node and every node under it
	// (created, deleted, data changed: never children changed) until removed.
	AddWatchPersistentRecursive int32 = 1
)

// Error codes (KeeperException.Code) this package names beyond go-zookeeper's.
const (
	codeUnimplemented int32 = -6
	codeNoWatcher     int32 = -121
)

// ErrUnimplemented is the server's answer to an opcode it does not know
// (addWatch on a server before ZooKeeper 3.6).
var ErrUnimplemented = fmt.Errorf("zk: operation not implemented by the server")

// ErrNoWatcher is the server's answer to removeWatches for a watch it does
// not hold.
var ErrNoWatcher = fmt.Errorf("zk: no such watcher")

// codeErrors maps the server's error codes to go-zookeeper's error values,
// so that errors.Is(err, zk.ErrNoNode) works as it does with go-zookeeper.
var codeErrors = map[int32]error{
	-100: zk.ErrAPIError,
	-101: zk.ErrNoNode,
	-102: zk.ErrNoAuth,
	-103: zk.ErrBadVersion,
	-108: zk.ErrNoChildrenForEphemerals,
	-110: zk.ErrNodeExists,
	-111: zk.ErrNotEmpty,
	-112: zk.ErrSessionExpired,
	-114: zk.ErrInvalidACL,
	-115: zk.ErrAuthFailed,
	-116: zk.ErrClosing,
	-117: zk.ErrNothing,
	-118: zk.ErrSessionMoved,
	-123: zk.ErrReconfigDisabled,
	-8:   zk.ErrBadArguments,
	-6:   ErrUnimplemented,
	-121: ErrNoWatcher,
}

// CodeError is a server error code go-zookeeper has no value for.
type CodeError int32

// Error says the code.
func (e CodeError) Error() string { return fmt.Sprintf("zk: server error code %d", int32(e)) }

// codeError turns a reply's error code into an error (nil for 0).
func codeError(code int32) error {
	if code == 0 {
		return nil
	}
	if err, ok := codeErrors[code]; ok {
		return err
	}
	return CodeError(code)
}

// Records this package sends. Each appends its body to e.

func encodePath(e *encoder, path string)                  { e.string(path) }
func encodePathWatch(e *encoder, path string, watch bool) { e.string(path); e.bool(watch) }

func encodeCreate(e *encoder, path string, data []byte, acl []zk.ACL, flags int32) {
	e.string(path)
	e.buffer(data)
	e.acls(acl)
	e.int32(flags)
}

func encodeCreateTTL(e *encoder, path string, data []byte, acl []zk.ACL, flags int32, ttlMs int64) {
	encodeCreate(e, path, data, acl, flags)
	e.int64(ttlMs)
}

func encodePathVersion(e *encoder, path string, version int32) {
	e.string(path)
	e.int32(version)
}

func encodeSetData(e *encoder, path string, data []byte, version int32) {
	e.string(path)
	e.buffer(data)
	e.int32(version)
}

// connectRequest is the first frame of a connection (no request header).
type connectRequest struct {
	protocolVersion int32
	lastZxidSeen    int64
	timeoutMs       int32
	sessionID       int64
	passwd          []byte
	readOnly        bool
}

func (r *connectRequest) encode(e *encoder) {
	e.int32(r.protocolVersion)
	e.int64(r.lastZxidSeen)
	e.int32(r.timeoutMs)
	e.int64(r.sessionID)
	e.buffer(r.passwd)
	e.bool(r.readOnly)
}

// connectResponse is the server's first frame.
type connectResponse struct {
	protocolVersion int32
	timeoutMs       int32
	sessionID       int64
	passwd          []byte
	readOnly        bool
}

func decodeConnectResponse(b []byte) (connectResponse, error) {
	d := decoder{b: b}
	r := connectResponse{
		protocolVersion: d.int32(),
		timeoutMs:       d.int32(),
		sessionID:       d.int64(),
		passwd:          d.buffer(),
	}
	if d.err == nil && d.left() > 0 { // servers before 3.4 send no readOnly
		r.readOnly = d.bool()
	}
	return r, d.end()
}

// replyHeader starts every frame after the connect response.
type replyHeader struct {
	xid  int32
	zxid int64
	err  int32
}

const replyHeaderLen = 16

func decodeReplyHeader(d *decoder) replyHeader {
	return replyHeader{xid: d.int32(), zxid: d.int64(), err: d.int32()}
}

// watcherEvent is a notification's body.
type watcherEvent struct {
	typ   int32
	state int32
	path  string
}

func decodeWatcherEvent(d *decoder) watcherEvent {
	return watcherEvent{typ: d.int32(), state: d.int32(), path: d.string()}
}

// setWatches is a SetWatches (or, with persistent watches, SetWatches2)
// request's body.
type setWatches struct {
	relativeZxid        int64
	data, exist, child  []string
	persistent, recurse []string
}

func (s *setWatches) encode(e *encoder, v2 bool) {
	e.int64(s.relativeZxid)
	e.strings(s.data)
	e.strings(s.exist)
	e.strings(s.child)
	if v2 {
		e.strings(s.persistent)
		e.strings(s.recurse)
	}
}

func (s *setWatches) v2() bool { return len(s.persistent)+len(s.recurse) > 0 }
