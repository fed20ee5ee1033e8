package retry

import (
	"testing"
	"time"
)

func TestNTimes(t *testing.T) {
	for _, tc := range []struct {
		n     int
		sleep time.Duration
	}{
		{0, time.Second}, {1, 0}, {3, time.Millisecond}, {10, 0},
	} {
		b := must(t)(NTimes(tc.n, tc.sleep)).NewBackOff()
		ds := drain(t, b, 1000)
		if len(ds) != tc.n {
			t.Errorf("NTimes(%d, %v): %d retries, want %d", tc.n, tc.sleep, len(ds), tc.n)
		}
		for _, d := range ds {
			if d != tc.sleep {
				t.Errorf("NTimes(%d, %v): sleep %v", tc.n, tc.sleep, d)
			}
		}
	}
}

func TestNTimesReset(t *testing.T) {
	b := must(t)(NTimes(4, 0)).NewBackOff()
	b.NextBackOff()
	b.Reset()
	if got := len(drain(t, b, 100)); got != 4 {
		t.Fatalf("after Reset: %d retries, want 4", got)
	}
	b.Reset()
	if got := len(drain(t, b, 100)); got != 4 {
		t.Fatalf("after exhaustion and Reset: %d retries, want 4", got)
	}
}

func TestNTimesBackOffsAreIndependent(t *testing.T) {
	p := must(t)(NTimes(2, 0))
	a, b := p.NewBackOff(), p.NewBackOff()
	drain(t, a, 10)
	if got := len(drain(t, b, 10)); got != 2 {
		t.Fatalf("second BackOff: %d retries, want 2 (state leaked between BackOffs)", got)
	}
}

func TestOneTime(t *testing.T) {
	ds := drain(t, must(t)(OneTime(5*time.Millisecond)).NewBackOff(), 10)
	if len(ds) != 1 || ds[0] != 5*time.Millisecond {
		t.Fatalf("OneTime(5ms) = %v, want [5ms]", ds)
	}
	if ds := drain(t, must(t)(OneTime(0)).NewBackOff(), 10); len(ds) != 1 || ds[0] != 0 {
		t.Fatalf("OneTime(0) = %v, want [0]", ds)
	}
}

func TestForever(t *testing.T) {
	b := must(t)(Forever(time.Millisecond)).NewBackOff()
	for i := range 100000 {
		if d := b.NextBackOff(); d != time.Millisecond {
			t.Fatalf("call %d: %v, want 1ms", i, d)
		}
	}
	b.Reset()
	if d := b.NextBackOff(); d != time.Millisecond {
		t.Fatalf("after Reset: %v, want 1ms", d)
	}
}
