package discovery

import (
	"sync"
	"time"
)

// DownInstancePolicy says when a Provider treats an instance as down
// (Curator's DownInstancePolicy): once NoteError has been called for it
// ErrorThreshold times, it is left out until Timeout has passed since the
// first of those errors; then its count starts again.
type DownInstancePolicy struct {
	// Timeout is how long errors count (Curator's default: 30 s).
	Timeout time.Duration
	// ErrorThreshold is how many errors make an instance down (Curator's
	// default: 2).
	ErrorThreshold int
}

// DefaultDownInstancePolicy is Curator's default: 2 errors within 30 s.
var DefaultDownInstancePolicy = DownInstancePolicy{Timeout: 30 * time.Second, ErrorThreshold: 2}

// downInstances is Curator's DownInstanceManager: errors counted per
// instance (equal field for field), forgotten Timeout after the first.
type downInstances struct {
	policy DownInstancePolicy
	now    func() time.Time

	mu       sync.Mutex
	statuses map[string]*downStatus
}

type downStatus struct {
	since  time.Time
	errors int
}

func newDownInstances(p DownInstancePolicy) *downInstances {
	return &downInstances{policy: p, now: time.Now, statuses: map[string]*downStatus{}}
}

// add notes one error of inst.
func (d *downInstances) add(inst Instance) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.purgeLocked()
	k := instanceKey(inst)
	s := d.statuses[k]
	if s == nil {
		s = &downStatus{since: d.now()}
		d.statuses[k] = s
	}
	s.errors++
}

// up reports whether inst is not down.
func (d *downInstances) up(inst Instance) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.purgeLocked()
	if len(d.statuses) == 0 {
		return true // no errors noted: no key to make (a JSON encoding)
	}
	s := d.statuses[instanceKey(inst)]
	return s == nil || s.errors < d.policy.ErrorThreshold
}

func (d *downInstances) purgeLocked() {
	now := d.now()
	for k, s := range d.statuses {
		if now.Sub(s.since) >= d.policy.Timeout {
			delete(d.statuses, k)
		}
	}
}

// instanceKey identifies an instance field for field, as Curator's
// ServiceInstance.hashCode and equals do.
func instanceKey(inst Instance) string {
	b, err := MarshalFull(inst)
	if err != nil {
		return inst.String()
	}
	return string(b)
}
