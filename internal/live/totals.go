package live

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/tressi/tressi/results"
)

// Totals are a run's figures so far, summed over its intervals, with the
// keys and the definitions of `tressi report --format json`: a request is
// ok with an expected status and no error; errors leave out the requests a
// stop cut off (not_sent, interrupted).
type Totals struct {
	Requests    int64            `json:"requests"`
	OK          int64            `json:"ok"`
	Errors      int64            `json:"errors"`
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
// verdict on the server.
func cutOff(word string) bool {
	return word == results.NotSent.String() || word == results.Interrupted.String()
}

// Sum totals ivs.
func Sum(ivs []Interval) Totals {
	t := Totals{Status: map[string]int64{}, ErrorKinds: map[string]int64{}}
	type acc struct {
		EndpointTotals
		latency, service Hist
	}
	eps := map[string]*acc{}
	endpoint := func(name string) *acc {
		e := eps[name]
		if e == nil {
			e = &acc{EndpointTotals: EndpointTotals{Name: name, Status: map[string]int64{}, ErrorKinds: map[string]int64{}}}
			eps[name] = e
		}
		return e
	}
	var latency, service, sendLag Hist
	for k := range ivs {
		iv := &ivs[k]
		for _, s := range iv.Series {
			e := endpoint(s.Endpoint)
			e.Requests += s.Requests
			e.OK += s.OK
			if !cutOff(s.Error) {
				e.Errors += s.Requests - s.OK
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
		}
		for j := range iv.Endpoints {
			h := &iv.Endpoints[j]
			e := endpoint(h.Name)
			e.latency.Merge(&h.Latency)
			e.service.Merge(&h.Service)
			latency.Merge(&h.Latency)
			service.Merge(&h.Service)
		}
		sendLag.Merge(&iv.SendLag)
	}
	for _, e := range eps {
		e.Latency, e.Service = e.latency.Percentiles(), e.service.Percentiles()
		t.Endpoints = append(t.Endpoints, e.EndpointTotals)
		t.Requests += e.Requests
		t.OK += e.OK
		t.Errors += e.Errors
		for k, n := range e.Status {
			t.Status[k] += n
		}
		for k, n := range e.ErrorKinds {
			t.ErrorKinds[k] += n
		}
	}
	sortEndpointTotals(t.Endpoints)
	t.Latency, t.Service, t.SendLag = latency.Percentiles(), service.Percentiles(), sendLag.Percentiles()
	return t
}

func sortSeries(s []Series) { slices.SortFunc(s, compareSeries) }

func sortEndpoints(e []EndpointHists) {
	slices.SortFunc(e, func(a, b EndpointHists) int { return cmp.Compare(a.Name, b.Name) })
}

func sortEndpointTotals(e []EndpointTotals) {
	slices.SortFunc(e, func(a, b EndpointTotals) int { return cmp.Compare(a.Name, b.Name) })
}
