package cli

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/internal/dashboard"
	"github.com/tressi/tressi/internal/live"
	"github.com/tressi/tressi/internal/metrics"
	"github.com/tressi/tressi/results"
)

// liveFlags are apply's ways to watch a run while it runs.
type liveFlags struct {
	dashboard   string // listen address; "" for none
	linger      time.Duration
	metrics     string // /metrics listen address; "" for none
	remoteWrite string // Remote Write URL; "" for none
	headers     []string
}

func (l *liveFlags) bind(fl *pflag.FlagSet) {
	fl.StringVar(&l.dashboard, "dashboard", "", "serve a live dashboard of the run at `ADDR` (alone: "+dashboard.DefaultAddr+
		"; :0 picks a free port;\na host other than loopback only when named)")
	fl.Lookup("dashboard").NoOptDefVal = dashboard.DefaultAddr
	fl.DurationVar(&l.linger, "dashboard-linger", 0, "keep the dashboard (and /metrics) up this long after the run ended (the run never waits for a browser)")
	fl.StringVar(&l.metrics, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics while the run runs (loopback unless a host is named)")
	fl.StringVar(&l.remoteWrite, "remote-write", "", "push Prometheus Remote Write 1.0 to `URL` every second, then stale markers at the end")
	fl.StringArrayVar(&l.headers, "remote-write-header", nil, "add `\"Name: value\"` to every remote-write push (repeatable; e.g. Authorization);\nnever written to meta.json")
}

func (l *liveFlags) any() bool { return l.dashboard != "" || l.metrics != "" || l.remoteWrite != "" }

// liveViews are a run's live outputs while it runs.
type liveViews struct {
	e       *env
	feed    *live.Feed
	stop    chan struct{}
	servers []interface{ Close() error }
	linger  time.Duration
	pusher  *metrics.Pusher
	pushed  <-chan struct{} // closed when the last update was queued
}

// flushDeadline is how long the end of a run waits for remote writes.
const flushDeadline = 30 * time.Second

// startLive starts what l asks for and hooks its feed into opt; nil when
// nothing was asked for. What listens is up before the run starts, so a
// shard waiting for its --start-at already serves it.
func startLive(e *env, s *compile.Schedule, opt *exec.Options, l *liveFlags) (*liveViews, error) {
	if l == nil || !l.any() {
		return nil, nil
	}
	run := live.RunInfo{Plan: s.Name, Shard: opt.Shard.String(), PlannedNs: int64(s.Duration),
		Thresholds: liveThresholds(&s.Thresholds)}
	if s.Model == compile.Open {
		run.Slots = opt.Shard.Slots(s.Count)
	}
	return serveLive(e, live.NewFeed(run), s, opt, l)
}

// serveLive starts the dashboard, /metrics and the remote writes l asks
// for, all of feed, whose run's endpoints are s's.
func serveLive(e *env, feed *live.Feed, s *compile.Schedule, opt *exec.Options, l *liveFlags) (*liveViews, error) {
	v := &liveViews{e: e, feed: feed, stop: make(chan struct{}), linger: l.linger}
	labels := &metrics.Labels{Plan: s.Name, Shard: opt.Shard.String(), Targets: endpointTargets(s)}
	var headers http.Header
	if l.remoteWrite != "" {
		if err := checkRemoteWriteURL(l.remoteWrite); err != nil {
			return nil, err
		}
		var err error
		if headers, err = metrics.ParseHeaders(l.headers); err != nil {
			return nil, fmt.Errorf("--remote-write-header: %w", err)
		}
	}
	if l.dashboard != "" {
		ln, err := listenFor(e, "--dashboard", l.dashboard)
		if err != nil {
			return nil, err
		}
		v.servers = append(v.servers, dashboard.Serve(ln, v.feed))
		fmt.Fprintf(e.stderr, "Dashboard: %s\n", dashboard.URL(ln))
	}
	if l.metrics != "" {
		ln, err := listenFor(e, "--metrics", l.metrics)
		if err != nil {
			v.closeServers()
			return nil, err
		}
		v.servers = append(v.servers, metrics.Serve(ln, v.feed.View(), labels))
		fmt.Fprintf(e.stderr, "Metrics: %smetrics\n", dashboard.URL(ln))
	}
	if l.remoteWrite != "" {
		v.pusher = metrics.NewPusher(l.remoteWrite, headers)
		v.pushed = metrics.Stream(v.feed, labels, v.pusher)
	}
	opt.Observe, opt.Started = v.feed.Observe, v.feed.Started
	go v.feed.Run(v.stop)
	return v, nil
}

// endpointTargets maps each endpoint name to its target's: the target
// label of the metrics.
func endpointTargets(s *compile.Schedule) map[string]string {
	m := map[string]string{}
	for _, r := range s.Requests {
		if r.Target >= 0 && r.Target < len(s.Targets) {
			m[r.Name] = s.Targets[r.Target].Name
		}
	}
	return m
}

func checkRemoteWriteURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--remote-write %q: want an http(s) URL, such as http://127.0.0.1:9090/api/v1/write", redactURL(raw))
	}
	return nil
}

// redactURL hides a URL's password, for messages and meta.json.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

func listenFor(e *env, flag, addr string) (net.Listener, error) {
	ln, warning, err := dashboard.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if warning != "" {
		fmt.Fprintf(e.stderr, "Warning: %s %s\n", flag, warning)
	}
	return ln, nil
}

// finish publishes the run's last update: every row is in it.
func (v *liveViews) finish() {
	if v == nil {
		return
	}
	close(v.stop)
	<-v.feed.Done()
	if v.pusher != nil {
		<-v.pushed
		if err := v.pusher.Close(flushDeadline); err != nil {
			fmt.Fprintf(v.e.stderr, "Warning: %v\n", err)
		}
	}
}

// close keeps the dashboard up for the linger (or until interrupt), then
// closes everything.
func (v *liveViews) close(interrupt <-chan struct{}) {
	if v == nil {
		return
	}
	if v.linger > 0 {
		select {
		case <-time.After(v.linger):
		case <-interrupt:
		}
	}
	v.closeServers()
}

func (v *liveViews) closeServers() {
	for _, s := range v.servers {
		_ = s.Close()
	}
}

// liveThresholds lists the plan's thresholds for the dashboard, saying
// which are judged while the run goes.
func liveThresholds(t *results.Thresholds) []live.Threshold {
	var out []live.Threshold
	if t.ErrorRate > 0 {
		out = append(out, live.Threshold{Name: "error_rate", Limit: strconv.FormatFloat(t.ErrorRate, 'g', -1, 64), Live: true})
	}
	if t.ErrorCount > 0 {
		out = append(out, live.Threshold{Name: "error_count", Limit: strconv.FormatInt(t.ErrorCount, 10), Live: true})
	}
	if len(t.StatusCodes) > 0 {
		out = append(out, live.Threshold{Name: "status_codes", Limit: fmt.Sprint(t.StatusCodes), Live: true})
	}
	for _, l := range []struct {
		name  string
		limit time.Duration
	}{{"p50", t.P50}, {"p90", t.P90}, {"p95", t.P95}, {"p99", t.P99}, {"p999", t.P999}, {"max", t.Max}} {
		if l.limit > 0 {
			out = append(out, live.Threshold{Name: l.name, Limit: l.limit.String(), Live: t.LiveWindow > 0})
		}
	}
	return out
}
