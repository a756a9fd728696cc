package live

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/tressi/tressi/results"
)

// Totals are a run's figures so far, summed over its intervals, with the
// keys of `tressi report --format json` and its definitions, the one of
// results.Counts: a request is ok with an expected status and no error;
// errors and the error rate leave out the requests a stop cut off
// (not_sent, interrupted).
type Totals struct {
	Requests    int64            `json:"requests"`
	OK          int64            `json:"ok"`
	Errors      int64            `json:"errors"`
	ErrorRate   float64          `json:"error_rate"`
	NotSent     int64            `json:"not_sent"`
	Interrupted int64            `json:"interrupted"`
	Completed   int64            `json:"completed"`
	BytesOut    int64            `json:"bytes_out"`
	BytesIn     int64            `json:"bytes_in"`
	Latency     Percentiles      `json:"latency_ms"`
	Service     Percentiles      `json:"service_ms"`
	SendLag     Percentiles      `json:"send_lag_ms"`
	Status      map[string]int64 `json:"status"`
	ErrorKinds  map[string]int64 `json:"error_kinds"`
	Endpoints   []EndpointTotals `json:"endpoints"`
}

// EndpointTotals are one endpoint's, as the report's endpoints list them.
type EndpointTotals struct {
	Name     string           `json:"name"`
	Requests int64            `json:"requests"`
	OK       int64            `json:"ok"`
	Errors   int64            `json:"errors"`
	Latency  Percentiles      `json:"latency_ms"`
	Service  Percentiles      `json:"service_ms"`
	Status   map[string]int64 `json:"status"`
	// ErrorKinds counts this endpoint's error words.
	ErrorKinds map[string]int64 `json:"error_kinds"`
}

// cutOff says whether an error word marks a row a stop cut off: no
// verdict on the server (results.ErrorKind.CutOff).
func cutOff(word string) bool {
	k, _ := results.ParseErrorKind(word)
	return k.CutOff()
}

// Sum totals ivs.
func Sum(ivs []Interval) Totals {
	t := Totals{Status: map[string]int64{}, ErrorKinds: map[string]int64{}}
	type acc struct {
		EndpointTotals
		counts           results.Counts
		latency, service Hist
	}
	eps := map[string]*acc{}
	endpoint := func(name string) *acc {
		e := eps[name]
		if e == nil {
			e = &acc{EndpointTotals: EndpointTotals{Name: name, Status: map[string]int64{}, ErrorKinds: map[string]int64{}}}
			e.latency.Dense() // sums of many intervals: dense counts, no searching
			e.service.Dense()
			eps[name] = e
		}
		return e
	}
	var latency, service, sendLag Hist
	latency.Dense()
	service.Dense()
	sendLag.Dense()
	for k := range ivs {
		iv := &ivs[k]
		for _, s := range iv.Series {
			e := endpoint(s.Endpoint)
			e.counts.Requests += s.Requests
			e.counts.OK += s.OK
			if cutOff(s.Error) {
				e.counts.CutOff += s.Requests
			}
			e.Status[strconv.Itoa(s.Status)] += s.Requests
			if s.Error != "" {
				e.ErrorKinds[s.Error] += s.Requests
			}
			switch s.Error {
			case results.NotSent.String():
				t.NotSent += s.Requests
			case results.Interrupted.String():
				t.Interrupted += s.Requests
			}
			t.Completed += s.Responses
			t.BytesOut += s.BytesOut
			t.BytesIn += s.BytesIn
			e.latency.Merge(&s.Latency)
			e.service.Merge(&s.Service)
			latency.Merge(&s.Latency)
			service.Merge(&s.Service)
		}
		sendLag.Merge(&iv.SendLag)
	}
	var all results.Counts
	for _, e := range eps {
		e.Requests, e.OK, e.Errors = e.counts.Requests, e.counts.OK, e.counts.Errors()
		e.Latency, e.Service = e.latency.Percentiles(), e.service.Percentiles()
		t.Endpoints = append(t.Endpoints, e.EndpointTotals)
		all.Requests += e.counts.Requests
		all.OK += e.counts.OK
		all.CutOff += e.counts.CutOff
		for k, n := range e.Status {
			t.Status[k] += n
		}
		for k, n := range e.ErrorKinds {
			t.ErrorKinds[k] += n
		}
	}
	t.Requests, t.OK, t.Errors, t.ErrorRate = all.Requests, all.OK, all.Errors(), all.ErrorRate()
	sortEndpointTotals(t.Endpoints)
	t.Latency, t.Service, t.SendLag = latency.Percentiles(), service.Percentiles(), sendLag.Percentiles()
	return t
}

func sortSeries(s []Series) { slices.SortFunc(s, compareSeries) }

func sortEndpointTotals(e []EndpointTotals) {
	slices.SortFunc(e, func(a, b EndpointTotals) int { return cmp.Compare(a.Name, b.Name) })
}
