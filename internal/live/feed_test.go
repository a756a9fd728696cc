package live_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/internal/live"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/report"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// mixedPlan is a few seconds of load on the built-in target, with
// responses ok and not, fast and slow, and timeouts.
const mixedPlan = `
target "local" {
  url         = "http://%s"
  connections = 64
  timeout     = "300ms"
}
endpoint "home" {
  path   = "/"
  weight = 4
}
endpoint "slow" {
  path   = "/delay/20"
  weight = 2
}
endpoint "missing" {
  path   = "/status/404"
  weight = 1
}
endpoint "stuck" {
  path   = "/delay/600"
  weight = 1
}
load {
  model = "open"
  seed  = 5
  stage {
    duration = "3500ms"
    rate     = 300
  }
}
`

func compilePlan(t *testing.T, src string) *compile.Schedule {
	t.Helper()
	p, _, diags := plan.Load(plan.Options{Path: "live.hcl", FS: fstest.MapFS{"live.hcl": {Data: []byte(src)}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s, diags := compile.Compile(p)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// runWithFeed runs s with a feed watching and returns the feed and the
// run directory.
func runWithFeed(t *testing.T, s *compile.Schedule) (*live.Feed, *exec.Outcome) {
	t.Helper()
	feed := live.NewFeed(live.RunInfo{Plan: s.Name, Shard: "0/1", PlannedNs: int64(s.Duration)})
	stop := make(chan struct{})
	go feed.Run(stop)
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.Run(ctx, s, exec.Options{OutDir: dir, Observe: feed.Observe, Started: feed.Started, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	close(stop)
	select {
	case <-feed.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the feed did not end after the run")
	}
	return feed, out
}

// What the live view reports at the end equals what the report computes
// from the rows, second for second.
func TestFeedEqualsReport(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	feed, out := runWithFeed(t, compilePlan(t, fmt.Sprintf(mixedPlan, addr)))
	rep, err := report.Build([]string{out.Dir}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tot := feed.View().Totals()
	if tot.Requests != rep.Requests || tot.OK != rep.OK || tot.Errors != rep.Errors || tot.Completed != rep.Completed ||
		tot.BytesOut != rep.BytesOut || tot.BytesIn != rep.BytesIn {
		t.Fatalf("live totals %d requests, %d ok, %d errors, %d completed, %d/%d bytes; report %d, %d, %d, %d, %d/%d",
			tot.Requests, tot.OK, tot.Errors, tot.Completed, tot.BytesOut, tot.BytesIn,
			rep.Requests, rep.OK, rep.Errors, rep.Completed, rep.BytesOut, rep.BytesIn)
	}
	if tot.ErrorRate != rep.ErrorRate {
		t.Fatalf("live error rate %g, report %g", tot.ErrorRate, rep.ErrorRate)
	}
	if tot.Errors == 0 || tot.OK == 0 {
		t.Fatalf("the plan meant both ok requests and errors: %+v", tot)
	}
	if tot.Latency != live.Percentiles(rep.Latency) || tot.Service != live.Percentiles(rep.Service) {
		t.Fatalf("latency live %+v report %+v; service live %+v report %+v", tot.Latency, rep.Latency, tot.Service, rep.Service)
	}
	if fmt.Sprint(tot.Status) != fmt.Sprint(rep.Status) || fmt.Sprint(tot.ErrorKinds) != fmt.Sprint(rep.ErrorKinds) {
		t.Fatalf("status live %v report %v; errors live %v report %v", tot.Status, rep.Status, tot.ErrorKinds, rep.ErrorKinds)
	}
	byName := map[string]live.EndpointTotals{}
	for _, e := range tot.Endpoints {
		byName[e.Name] = e
	}
	for _, e := range rep.Endpoints {
		l := byName[e.Name]
		if l.Requests != e.Requests || l.OK != e.OK || l.Errors != e.Errors || l.Latency != live.Percentiles(e.Latency) ||
			fmt.Sprint(l.Status) != fmt.Sprint(e.Status) {
			t.Errorf("endpoint %s: live %+v, report %+v", e.Name, l, e)
		}
	}
	ivs := feed.View().Intervals()
	secs := map[int64]live.Interval{}
	for _, iv := range ivs {
		if iv.Width != int64(time.Second) {
			t.Fatalf("interval of %v, want 1s", time.Duration(iv.Width))
		}
		secs[iv.Start/iv.Width] = iv
	}
	if len(rep.Series) < 3 {
		t.Fatalf("the report has %d seconds", len(rep.Series))
	}
	for _, sec := range rep.Series {
		iv := secs[sec.T]
		lat := iv.Latency()
		if iv.Completed() != sec.Completed || iv.Errors() != sec.Errors ||
			!same(ms(lat.Quantile(0.5)), sec.P50Ms) || !same(ms(lat.Quantile(0.99)), sec.P99Ms) {
			t.Errorf("second %d: live completed %d errors %d p50 %g p99 %g; report %+v",
				sec.T, iv.Completed(), iv.Errors(), ms(lat.Quantile(0.5)), ms(lat.Quantile(0.99)), sec)
		}
	}
	checkSeriesAgainstRows(t, ivs, filepath.Join(out.Dir, "results.arrow"))
	if run := feed.View().Run(); run.State != live.StateEnded || run.RunID != out.RunID {
		t.Fatalf("the view's run at the end: %+v", run)
	}
}

// seriesKey is a series' (endpoint, status, error).
type seriesKey struct {
	endpoint, err string
	status        int
}

// seriesTruth is what the rows of one series say: counts, and the exact
// count, min, max and sum of latency and service, which a series'
// histograms keep exactly.
type seriesTruth struct {
	requests, responses int64
	latency, service    [4]int64 // count, min, max, sum
}

func (s *seriesTruth) record(h *[4]int64, v int64) {
	if h[0] == 0 || v < h[1] {
		h[1] = v
	}
	h[2] = max(h[2], v)
	h[0]++
	h[3] += v
}

// checkSeriesAgainstRows sums the live series over the intervals and
// compares each with the rows of its (endpoint, status, error) read back
// from the results file.
func checkSeriesAgainstRows(t *testing.T, ivs []live.Interval, path string) {
	t.Helper()
	r, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	truth := map[seriesKey]*seriesTruth{}
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		for i := range b.Len {
			word := b.ErrorNames[b.Error[i]]
			if k, _ := results.ParseErrorKind(word); k.NotRequest() {
				continue
			}
			key := seriesKey{b.EndpointNames[b.Endpoint[i]], word, int(b.Status[i])}
			s := truth[key]
			if s == nil {
				s = &seriesTruth{}
				truth[key] = s
			}
			s.requests++
			if b.Latency[i] >= 0 {
				s.responses++
				s.record(&s.latency, b.Latency[i])
				if b.Service[i] >= 0 {
					s.record(&s.service, b.Service[i])
				}
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	got := map[seriesKey]*live.Series{}
	sums := live.SumSeries(ivs)
	for j := range sums {
		got[seriesKey{sums[j].Endpoint, sums[j].Error, sums[j].Status}] = &sums[j]
	}
	if len(got) != len(truth) || len(truth) < 3 {
		t.Errorf("%d live series, %d in the rows (the plan meant ok answers, 404s and timeouts)", len(got), len(truth))
	}
	hist := func(h *live.Hist) [4]int64 { return [4]int64{h.Count, h.Min, h.Max, h.Sum} }
	for key, want := range truth {
		g := got[key]
		if g == nil {
			t.Errorf("series %+v: none live, %d rows", key, want.requests)
			continue
		}
		if g.Requests != want.requests || g.Responses != want.responses || hist(&g.Latency) != want.latency || hist(&g.Service) != want.service {
			t.Errorf("series %+v: live %d requests %d responses latency %v service %v; rows %+v",
				key, g.Requests, g.Responses, hist(&g.Latency), hist(&g.Service), *want)
		}
	}
}

func same(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func ms(ns int64) float64 { return float64(ns) / 1e6 }
