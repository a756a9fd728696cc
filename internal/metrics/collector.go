package metrics

import (
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tressi/tressi/internal/live"
)

// collector is a prometheus.Collector reading the live view at each
// scrape: the counts are the rows' (as the report will count them), not
// a second tally kept on the side. It is unchecked (Describe sends
// nothing): the run_id label is known only once the run started.
type collector struct {
	view   *live.View
	labels *Labels
}

func (c *collector) Describe(chan<- *prometheus.Desc) {}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	run := prometheus.Labels{labelRunID: c.view.Run().RunID, labelPlan: c.labels.Plan, labelShard: c.labels.Shard}
	desc := func(name string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help[name], labels, run)
	}
	s := Take(c.view, c.labels)
	requests := desc(RequestsTotal, labelTarget, labelEndpoint, labelStatus, labelError)
	for _, r := range s.Requests {
		ch <- prometheus.MustNewConstMetric(requests, prometheus.CounterValue, float64(r.Value),
			r.Target, r.Endpoint, strconv.Itoa(r.Status), r.Error)
	}
	for name, hs := range map[string][]Histogram{RequestDuration: s.Request, ServiceDuration: s.Service} {
		d := desc(name, labelTarget, labelEndpoint, labelStatus, labelError)
		for _, h := range hs {
			buckets := make(map[float64]uint64, len(Bounds))
			for i, b := range Bounds {
				buckets[b] = uint64(h.Counts[i])
			}
			ch <- prometheus.MustNewConstHistogram(d, uint64(h.Count), h.Sum, buckets, h.Target, h.Endpoint, strconv.Itoa(h.Status), h.Error)
		}
	}
	for name, v := range s.gauges() {
		ch <- prometheus.MustNewConstMetric(desc(name), prometheus.GaugeValue, v)
	}
}

var help = map[string]string{
	RequestsTotal:   "Requests recorded, by outcome, as the report counts them.",
	RequestDuration: "Corrected latency: response complete minus the request's due instant.",
	ServiceDuration: "Service time: response complete minus the request's send.",
	SendLag:         "The largest send lag (sent minus due) of the last second: the generator falling behind.",
	OpenConnections: "Connections open now.",
	ActiveSessions:  "Scenario sessions (open model) or users (closed model) active now.",
	InFlight:        "Requests sent and not yet answered.",
	OfferedRate:     "Requests due per second in the last whole interval.",
	AchievedRate:    "Responses completed per second in the last whole interval.",
	SearchProbeRate: "A capacity search's probe running now: its rate in req/s (users in the closed model); 0 between probes.",
}

// Server serves /metrics.
type Server struct{ http *http.Server }

// Serve serves the view's metrics at /metrics on ln until Close.
func Serve(ln net.Listener, v *live.View, l *Labels) *Server {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&collector{view: v, labels: l})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	s := &Server{http: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go s.http.Serve(ln) //nolint:errcheck // ends with Close
	return s
}

// Close stops serving.
func (s *Server) Close() error { return s.http.Close() }
