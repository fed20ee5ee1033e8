package hookmetrics

import "github.com/go-zkrecipes/zkrecipes/client"

// OpLabels are the values of a request's op label (client's Op
// constants), client.OpOther last; OpIndex counts a name the client does
// not list here as client.OpOther.
var OpLabels = [...]string{
	client.OpCreate, client.OpDelete, client.OpExists, client.OpGetData, client.OpSetData,
	client.OpGetChildren, client.OpMulti, client.OpSync, client.OpGetACL, client.OpSetACL,
	client.OpAddWatch, client.OpRemoveWatches, client.OpOther,
}

// ErrorLabels are the values of a failed request's error label
// (client.RequestHook.Label's for a failed request), client.RequestError
// last.
var ErrorLabels = [...]string{
	client.RequestNoNode, client.RequestNodeExists, client.RequestBadVersion, client.RequestNotEmpty,
	client.RequestNoAuth, client.RequestConnectionLoss, client.RequestSessionExpired, client.RequestClosed,
	client.RequestError,
}

// OpIndex is op's index in OpLabels: client.OpOther's for a name not
// there.
func OpIndex(op string) int {
	for i, o := range OpLabels {
		if o == op {
			return i
		}
	}
	return len(OpLabels) - 1 // other
}

// ErrorIndex is label's index in ErrorLabels: client.RequestError's for a
// label not there.
func ErrorIndex(label string) int {
	for i, e := range ErrorLabels {
		if e == label {
			return i
		}
	}
	return len(ErrorLabels) - 1 // error
}
