package chaos

import "sync"

// Store is a fenced store: it accepts a write only with a token at least the
// highest it has accepted. It also knows the highest token granted so far
// (Granted), so it can count writes it accepted although a newer holding
// already existed (stale writes the fence let through because the newer
// holder had not written yet).
type Store struct {
	mu            sync.Mutex
	highest       int64 // highest token accepted
	granted       int64 // highest token granted
	accepted      int
	refused       int // stale writes refused
	staleAccepted int // accepted with a token below the highest granted
}

// Granted tells the store that a holding with token was granted.
func (s *Store) Granted(token int64) {
	s.mu.Lock()
	s.granted = max(s.granted, token)
	s.mu.Unlock()
}

// Write tries a write with token and reports whether it was accepted.
func (s *Store) Write(token int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.highest {
		s.refused++
		return false
	}
	if token < s.granted {
		s.staleAccepted++
	}
	s.highest = token
	s.accepted++
	return true
}

// StoreStats are the store's counts.
type StoreStats struct {
	Accepted, Refused, StaleAccepted int
}

// Stats returns the store's counts.
func (s *Store) Stats() StoreStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return StoreStats{s.accepted, s.refused, s.staleAccepted}
}
