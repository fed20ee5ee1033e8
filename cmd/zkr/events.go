package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// CacheEvent is one line of zkr watch --events --json. Its JSON field names
// are stable.
type CacheEvent struct {
	// Time is when zkr received the event, RFC 3339 with nanoseconds.
	Time time.Time `json:"time"`
	// Type is NODE_CREATED, NODE_CHANGED, NODE_DELETED or INITIALIZED
	// (Curator's CuratorCacheListener names).
	Type string `json:"type"`
	// Path is the node's path (relative to the namespace); empty for
	// INITIALIZED.
	Path string `json:"path,omitempty"`
	// Version is the node's data version after the change (as last cached
	// for a deletion; absent for INITIALIZED); Czxid and Mzxid are its
	// stat's.
	Version *int32 `json:"version,omitempty"`
	Czxid   int64  `json:"czxid,omitempty"`
	Mzxid   int64  `json:"mzxid,omitempty"`
	// Session is the owner session in hex for an ephemeral node.
	Session string `json:"session,omitempty"`
	// Data is the node's data (text, or 0x-hex), DataBytes its length;
	// both absent with --no-data.
	Data      *string `json:"data,omitempty"`
	DataBytes *int    `json:"data_bytes,omitempty"`
}

const eventFields = `JSON fields (stable), one object per line: time (RFC 3339), type
(NODE_CREATED|NODE_CHANGED|NODE_DELETED|INITIALIZED), then for a node's event:
path, version, czxid, mzxid, session (hex, ephemeral nodes only), data (text,
or 0x-hex) and data_bytes (both left out with --no-data).`

// eventOf renders a cache event received at now.
func eventOf(ev cache.Event, withData bool, now time.Time) CacheEvent {
	e := CacheEvent{Time: now.UTC(), Type: ev.Type.String()}
	if ev.Type == cache.Initialized {
		return e
	}
	n := ev.Node
	v := n.Stat.Version
	e.Path, e.Version, e.Czxid, e.Mzxid = n.Path, &v, n.Stat.Czxid, n.Stat.Mzxid
	if n.Stat.EphemeralOwner != 0 {
		e.Session = sessionHex(n.Stat.EphemeralOwner)
	}
	if withData {
		d, l := decodeData(n.Data), len(n.Data)
		e.Data, e.DataBytes = &d, &l
	}
	return e
}

// writeEvent prints one event: as one JSON line, or as a line for people.
func writeEvent(w io.Writer, e CacheEvent, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	ts := e.Time.Format("2006-01-02T15:04:05.000Z07:00")
	if e.Type == cache.Initialized.String() {
		_, err := fmt.Fprintf(w, "%s  %s\n", ts, e.Type)
		return err
	}
	line := fmt.Sprintf("%s  %-12s  %s  v%d", ts, e.Type, e.Path, *e.Version)
	if e.Data != nil {
		line += "  " + shortData(*e.Data, *e.DataBytes)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// eventOptions are the flags of zkr watch --events.
type eventOptions struct {
	depth  int // -1: every level; 0: the node alone
	noData bool
}

// cacheOptions turns the flags into the cache's options.
func (o eventOptions) cacheOptions() []cache.Option {
	var opts []cache.Option
	switch {
	case o.depth == 0:
		opts = append(opts, cache.WithSingleNode())
	case o.depth > 0:
		opts = append(opts, cache.WithDepth(o.depth))
	}
	if o.noData {
		opts = append(opts, cache.WithoutData())
	}
	return opts
}

// watchEvents runs a tree cache of p and prints its events until ctx ends
// (nil: Ctrl-C is a normal end) or the client closes.
func watchEvents(ctx context.Context, c clientAPI, p string, o eventOptions, w io.Writer, asJSON bool) error {
	ch, err := cache.New(c, p, o.cacheOptions()...)
	if err != nil {
		return usageErr("%v", err)
	}
	defer ch.Close(context.Background()) // bounded: at most a second
	events, cancel := ch.Events()        // before Start: the first load's events too
	defer cancel()
	// Start returns after the first load: on a goroutine of its own, so that
	// the load's events are printed as they come. It ends with the cache's
	// Close, if not before.
	started := make(chan error, 1)
	go func() { started <- ch.Start(ctx) }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-started:
			switch {
			case err == nil:
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, zkrecipes.ErrClosed):
				return fail(exitConnect, "%s: the cache ended (client closed)", p)
			default:
				return fail(exitNotFound, "%s: %v", p, err)
			}
			started = nil // the first load is done: events only from now on
		case ev, ok := <-events:
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fail(exitConnect, "%s: the cache ended (client closed)", p)
			}
			if err := writeEvent(w, eventOf(ev, !o.noData, time.Now()), asJSON); err != nil {
				return fail(exitNotFound, "%s: write: %v", p, err)
			}
		}
	}
}
