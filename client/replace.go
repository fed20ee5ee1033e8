package client

import (
	"context"
	"errors"

	"github.com/go-zkrecipes/zkrecipes"
)

// ReplaceProtected deletes the node old and creates a protected node as
// CreateProtected does (path, data, flags), both in one transaction when it
// can: one write for the server instead of two. A recipe that gives up a
// place in a queue and takes a new one at once (a leader that campaigns
// again after its term) uses it.
//
// old is deleted in every case: by the transaction; or, when old's session
// is not the client's current live one, or the server refused the
// transaction (old was gone already, say), or its outcome is unknown, by a
// guaranteed delete (see DeleteGuaranteed) once the create has been dealt
// with, which is tried for a while (2 s) even when ctx has ended, as a
// release's delete is. The create itself behaves as CreateProtected's, errors included:
// exactly one new node is left on success, none on failure.
func (c *Client) ReplaceProtected(ctx context.Context, old ProtectedNode, path string, data []byte, flags int32) (ProtectedNode, error) {
	oldFull, err := c.abs(old.Path)
	if err != nil {
		return ProtectedNode{}, err
	}
	replace := oldFull
	if old.Session == nil || old.Session != c.Session() || old.Session.ended() {
		replace = "" // a node of another session: it goes with it, or below
	}
	node, replaced, err := c.createProtected(ctx, path, data, flags, 0, replace)
	if !replaced {
		c.deleteReplaced(ctx, old)
	}
	return node, err
}

// deleteReplaced deletes old with a guaranteed delete that does not end
// with ctx (the caller may have given up on the create, not on the delete):
// within removeWithin when there is a connection, else in the background.
func (c *Client) deleteReplaced(ctx context.Context, old ProtectedNode) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeWithin)
	defer cancel()
	if isClosedChan(c.Disconnected()) {
		cancel() // no connection: straight to the background
	}
	if err := c.DeleteGuaranteed(dctx, old.Path, old.Session); err != nil && !errors.Is(err, zkrecipes.ErrDeletePending) {
		c.log.Warn("could not delete a replaced node; it goes with its session", "path", old.Path, "err", err)
	}
}
