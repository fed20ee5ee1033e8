package wire

// OpName is the name a request of op is reported under (the client's Op
// constants): ZooKeeper's own name of the operation, its variants merged
// (every create is "create", both listings "getChildren"), "" for the
// session's own requests (auth, set-watches, close-session, ping) and
// "other" for the rest.
func OpName(op int32) string {
	switch op {
	case opCreate, opCreate2, opCreateContainer, opCreateTTL:
		return "create"
	case opDelete:
		return "delete"
	case opExists:
		return "exists"
	case opGetData:
		return "getData"
	case opSetData:
		return "setData"
	case opGetChildren, opGetChildren2:
		return "getChildren"
	case opMulti:
		return "multi"
	case opSync:
		return "sync"
	case opGetACL:
		return "getACL"
	case opSetACL:
		return "setACL"
	case opAddWatch:
		return "addWatch"
	case opRemoveWatches:
		return "removeWatches"
	case opAuth, opSetWatches, opSetWatches2, opCloseSession, opPing:
		return ""
	}
	return "other"
}
