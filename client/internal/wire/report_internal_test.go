package wire

import (
	"testing"
	"time"
)

// BenchmarkFinish is the end of one request as the reader settles it,
// without a Request callback and with one that does nothing: the cost of
// the report alone (its channel's allocation is the same in both).
func BenchmarkFinish(b *testing.B) {
	for _, bc := range []struct {
		name string
		f    func(int32, time.Duration, error)
	}{{"none", nil}, {"hook", func(int32, time.Duration, error) {}}} {
		b.Run(bc.name, func(b *testing.B) {
			r := &request{op: opGetData, sentAt: time.Now()}
			b.ReportAllocs()
			for b.Loop() {
				r.done, r.report = make(chan struct{}), bc.f
				r.finish(1, nil)
			}
		})
	}
}
