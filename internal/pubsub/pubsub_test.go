package pubsub

import (
	"context"
	"testing"
	"time"
)

func TestOrderAndNoDrops(t *testing.T) {
	s := New[int]()
	go s.Run()
	const n = 10000
	for i := 0; i < n; i++ {
		s.Push(i) // never blocks, although nobody reads yet
	}
	for i := 0; i < n; i++ {
		select {
		case v := <-s.Out():
			if v != i {
				t.Fatalf("got %d, want %d", v, i)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("value %d not delivered", i)
		}
	}
	if s.Len() != 0 {
		t.Fatalf("queue not empty: %d", s.Len())
	}
	s.Stop()
	s.Stop() // idempotent
	if _, ok := <-s.Out(); ok {
		t.Fatal("Out not closed after Stop")
	}
}

func TestStopWithQueuedValues(t *testing.T) {
	s := New[string]()
	done := make(chan struct{})
	go func() { s.Run(); close(done) }()
	s.Push("a")
	s.Push("b")
	s.Stop()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Stop")
	}
	for range s.Out() { // drains at most what was handed over, then ends
	}
}

func TestClosed(t *testing.T) {
	if _, ok := <-Closed[int](); ok {
		t.Fatal("Closed returned an open channel")
	}
}

// TestHub: values in order to every subscriber, the first values before
// them, nothing after Close, and a closed channel for a late subscriber.
func TestHub(t *testing.T) {
	var h Hub[int]
	a, cancelA := h.Subscribe(-1)
	b, _ := h.Subscribe()
	for i := range 100 {
		h.Publish(i)
	}
	if v := <-a; v != -1 {
		t.Fatalf("first value %d, want -1", v)
	}
	for i := range 100 {
		if v := <-a; v != i {
			t.Fatalf("a got %d, want %d", v, i)
		}
		if v := <-b; v != i {
			t.Fatalf("b got %d, want %d", v, i)
		}
	}
	cancelA()
	cancelA()
	if _, ok := <-a; ok {
		t.Error("a still open after its cancel")
	}
	h.Close()
	if _, ok := <-b; ok {
		t.Error("b still open after Close")
	}
	h.Wait()
	late, cancel := h.Subscribe(1)
	if _, ok := <-late; ok || !h.Closed() {
		t.Error("a subscription after Close is open")
	}
	cancel()
	h.Publish(7) // no subscriber: nothing to do, no panic
}

func TestCancelOnClose(t *testing.T) {
	done := make(chan struct{})
	ctx, cancel := CancelOnClose(context.Background(), done)
	defer cancel()
	if ctx.Err() != nil {
		t.Fatal("cancelled before done closed")
	}
	close(done)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("not cancelled once done closed")
	}

	// Already closed: cancelled at once; the parent's end cancels too;
	// cancel twice is fine.
	ctx2, cancel2 := CancelOnClose(context.Background(), done)
	if ctx2.Err() == nil {
		t.Fatal("not cancelled with done already closed")
	}
	cancel2()
	cancel2()
	parent, end := context.WithCancel(context.Background())
	ctx3, cancel3 := CancelOnClose(parent, make(chan struct{}))
	end()
	<-ctx3.Done()
	cancel3()
	cancel3()
}
