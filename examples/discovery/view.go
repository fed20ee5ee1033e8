package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// view is what the client (the parent's discovery Cache) has seen, beside
// what the workers reported: the tally the last line is made of.
type view struct {
	mu       sync.Mutex
	changed  chan struct{}                 // closed and replaced at each change
	now      map[string]discovery.Instance // the instances in view, by ID
	reported map[string]string             // the URI each worker last reported registering
	killed   map[string]bool               // killed workers
	gone     map[string]bool               // killed workers seen removed since
	back     map[string]bool               // gone workers seen added again
	others   []string                      // removals of workers that were not killed
}

func newView() *view {
	return &view{changed: make(chan struct{}), now: map[string]discovery.Instance{},
		reported: map[string]string{}, killed: map[string]bool{}, gone: map[string]bool{}, back: map[string]bool{}}
}

// signalLocked wakes the waiters.
func (v *view) signalLocked() {
	close(v.changed)
	v.changed = make(chan struct{})
}

// apply records one event of the cache and returns it as "+id", "-id" or
// "~id" ("" for Initialized).
func (v *view) apply(ev discovery.Event) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	defer v.signalLocked()
	id := ev.Instance.ID
	switch ev.Type {
	case discovery.Added:
		v.now[id] = ev.Instance
		if v.gone[id] {
			v.back[id] = true
		}
		return "+" + id
	case discovery.Updated:
		v.now[id] = ev.Instance
		return "~" + id
	case discovery.Removed:
		delete(v.now, id)
		if v.killed[id] && !v.back[id] {
			v.gone[id] = true
		} else {
			v.others = append(v.others, id)
		}
		return "-" + id
	}
	return ""
}

// follow applies the cache's events until the channel closes, and prints
// the instance set after each batch of events that came at once.
func (v *view) follow(events <-chan discovery.Event, out *lockedWriter) {
	for ev := range events {
		changes := []string{v.apply(ev)}
	drain:
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					break drain
				}
				changes = append(changes, v.apply(ev))
			default:
				break drain
			}
		}
		changes = slices.DeleteFunc(changes, func(s string) bool { return s == "" })
		slices.SortFunc(changes, func(a, b string) int { return workerNumber(a[1:]) - workerNumber(b[1:]) })
		ids := v.ids()
		set := strings.Join(ids, " ")
		if len(ids) == 0 {
			set = "none"
		}
		if len(changes) == 0 {
			out.printf("client loaded the service: sees %d: %s\n", len(ids), set)
			continue
		}
		out.printf("client sees %d: %s (%s)\n", len(ids), set, strings.Join(changes, " "))
	}
}

// ids returns the ids in view, in worker order (w2 before w10).
func (v *view) ids() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	ids := make([]string, 0, len(v.now))
	for id := range v.now {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return workerNumber(a) - workerNumber(b) })
	return ids
}

// workerNumber is n of the id "w<n>".
func workerNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "w"))
	return n
}

// report records the URI a worker reported having registered.
func (v *view) report(id, uri string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.reported[id] = uri
	v.signalLocked()
}

// markKilled records workers about to be killed.
func (v *view) markKilled(ids []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, id := range ids {
		v.killed[id] = true
		delete(v.reported, id)
	}
}

// matching counts the live workers (ids) whose instance is in view at the
// URI they reported.
func (v *view) matching(ids []string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, id := range ids {
		inst, ok := v.now[id]
		if uri := v.reported[id]; ok && uri != "" && inst.BuildURI(nil) == uri {
			n++
		}
	}
	return n
}

// absent counts the ids not in view.
func (v *view) absent(ids []string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, id := range ids {
		if _, ok := v.now[id]; !ok {
			n++
		}
	}
	return n
}

// tally returns how many killed workers were seen gone and seen back, and
// the removals of workers that were not killed.
func (v *view) tally() (gone, back int, others []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.gone), len(v.back), slices.Clone(v.others)
}

// wait waits until done returns true, for at most within.
func (v *view) wait(ctx context.Context, within time.Duration, what string, done func() bool) error {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		v.mu.Lock()
		changed := v.changed
		v.mu.Unlock()
		if done() {
			return nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Errorf("parent: the client did not see %s within %v", what, within)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
