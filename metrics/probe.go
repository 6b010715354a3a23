package metrics

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// probeTimeout bounds a probe's work during a scrape.
const probeTimeout = 2 * time.Second

// probe is a gauge read when /metrics is scraped, from a function set later
// (SetReplicaLag, SetVerifyQueueAge): a SQL query, typically. Until it is set, or when it
// fails, the gauge has no sample, so that an alert on it sees "unknown", not a value.
type probe struct {
	desc *prometheus.Desc
	read atomic.Pointer[func(context.Context) (float64, error)]
}

func newProbe(name, help string) *probe {
	p := &probe{desc: prometheus.NewDesc(name, help, nil, nil)}
	Registry.MustRegister(p)
	return p
}

func (p *probe) set(read func(context.Context) (float64, error)) { p.read.Store(&read) }

func (p *probe) Describe(ch chan<- *prometheus.Desc) { ch <- p.desc }

func (p *probe) Collect(ch chan<- prometheus.Metric) {
	read := p.read.Load()
	if read == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if v, err := (*read)(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(p.desc, prometheus.GaugeValue, v)
	}
}

var (
	replicaLag = newProbe("db_replica_lag_seconds",
		"How far the database the API reads chain data from is behind its primary, in seconds (0 when it is the primary).")
	verifyQueueAge = newProbe("verify_queue_oldest_job_seconds",
		"Age of the oldest class-verification job still waiting for a worker, in seconds (0 when none waits).")
)

// SetReplicaLag makes read the source of db_replica_lag_seconds.
func SetReplicaLag(read func(context.Context) (float64, error)) { replicaLag.set(read) }

// SetVerifyQueueAge makes read the source of verify_queue_oldest_job_seconds.
func SetVerifyQueueAge(read func(context.Context) (float64, error)) { verifyQueueAge.set(read) }
