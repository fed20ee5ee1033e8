package zkprom

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// gauges are the gauges of what each recipe has now: waits, holdings or
// leaderships, and the age of the oldest of each. They are read at each
// scrape from the recipes' live sets.
type gauges struct {
	m                                                 *Metrics
	waiters, holders, leaders, oldestHold, oldestWait *prometheus.Desc
}

func newGauges(m *Metrics, labels []string) *gauges {
	name := func(n string) string { return prometheus.BuildFQName(m.cfg.namespace, "", n) }
	desc := func(n, help string) *prometheus.Desc {
		return prometheus.NewDesc(name(n), help, labels, m.cfg.constLabels)
	}
	return &gauges{
		m:          m,
		waiters:    desc("waiters", "Waits for a lock, a lease or leadership under way now, by recipe."),
		holders:    desc("holders", "Locks and leases held now, by recipe (each lease of a semaphore counts)."),
		leaders:    desc("leaders", "Leaderships held now, by election recipe (latch, leader)."),
		oldestHold: desc("oldest_holding_age_seconds", "Age of the oldest lock, lease or leadership held now, by recipe; 0 when none."),
		oldestWait: desc("oldest_wait_age_seconds", "Age of the oldest wait under way now, by recipe; 0 when none."),
	}
}

// Describe sends the gauges' descriptors.
func (g *gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{g.waiters, g.holders, g.leaders, g.oldestHold, g.oldestWait} {
		ch <- d
	}
}

// Collect sends each recipe's gauges, from the first time it reported on.
func (g *gauges) Collect(ch chan<- prometheus.Metric) {
	at := time.Now()
	g.m.recipes.Range(func(s *hookmetrics.Recipe[recipeSeries]) bool {
		n := s.Snapshot(at)
		held := g.holders
		if s.Leadership {
			held = g.leaders
		}
		for _, m := range []struct {
			d *prometheus.Desc
			v float64
		}{
			{g.waiters, float64(n.Waits)},
			{held, float64(n.Holds)},
			{g.oldestHold, n.OldestHold.Seconds()},
			{g.oldestWait, n.OldestWait.Seconds()},
		} {
			ch <- prometheus.MustNewConstMetric(m.d, prometheus.GaugeValue, m.v, s.Series.labels...)
		}
		return true
	})
}
