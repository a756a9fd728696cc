package live

import (
	"cmp"
	"slices"
)

// Interval is what one interval of a run did, by the instant each request
// ended: its response's completion, or its due instant when it got none
// (the report's per-second series counts so too). Rows of a request that
// timed out reach the aggregator a timeout later, so an interval may still
// change after it ended: a later Interval with the same Start replaces it.
type Interval struct {
	Start int64 `json:"t_ns"` // ns after instant zero
	Width int64 `json:"w_ns"`
	// Due counts the requests due in the interval (by scheduled_ns): the
	// offered load.
	Due    int64    `json:"due"`
	Series []Series `json:"series"` // sorted by endpoint, status, error
	// Endpoints hold the latency of the responses, by endpoint (those
	// with none are left out).
	Endpoints []EndpointHists `json:"endpoints"`
	// SendLag is sent − scheduled of the requests sent that ended in it.
	SendLag Hist `json:"send_lag"`
}

// Series counts one (endpoint, status, error) of an interval.
type Series struct {
	Endpoint  string `json:"endpoint"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Requests  int64  `json:"requests"`
	OK        int64  `json:"ok"`
	Responses int64  `json:"responses"`
	BytesOut  int64  `json:"bytes_out"`
	BytesIn   int64  `json:"bytes_in"`
}

// EndpointHists are one endpoint's corrected latency and service time.
type EndpointHists struct {
	Name    string `json:"name"`
	Latency Hist   `json:"latency"`
	Service Hist   `json:"service"`
}

func (s *Series) sameKey(o *Series) bool {
	return s.Endpoint == o.Endpoint && s.Status == o.Status && s.Error == o.Error
}

func compareSeries(a, b Series) int {
	return cmp.Or(cmp.Compare(a.Endpoint, b.Endpoint), cmp.Compare(a.Status, b.Status), cmp.Compare(a.Error, b.Error))
}

// Merge adds o (of the same or a later part of a wider interval) to iv.
func (iv *Interval) Merge(o *Interval) {
	iv.Due += o.Due
	for _, s := range o.Series {
		p, found := slices.BinarySearchFunc(iv.Series, s, compareSeries)
		if !found {
			iv.Series = slices.Insert(iv.Series, p, Series{Endpoint: s.Endpoint, Status: s.Status, Error: s.Error})
		}
		t := &iv.Series[p]
		t.Requests += s.Requests
		t.OK += s.OK
		t.Responses += s.Responses
		t.BytesOut += s.BytesOut
		t.BytesIn += s.BytesIn
	}
	for k := range o.Endpoints {
		e := &o.Endpoints[k]
		p, found := slices.BinarySearchFunc(iv.Endpoints, e.Name, func(x EndpointHists, name string) int { return cmp.Compare(x.Name, name) })
		if !found {
			iv.Endpoints = slices.Insert(iv.Endpoints, p, EndpointHists{Name: e.Name})
		}
		iv.Endpoints[p].Latency.Merge(&e.Latency)
		iv.Endpoints[p].Service.Merge(&e.Service)
	}
	iv.SendLag.Merge(&o.SendLag)
}

// Clone is a copy of iv sharing nothing with it.
func (iv *Interval) Clone() Interval {
	c := Interval{Start: iv.Start, Width: iv.Width, Due: iv.Due, Series: slices.Clone(iv.Series), SendLag: iv.SendLag.Clone()}
	for k := range iv.Endpoints {
		e := &iv.Endpoints[k]
		c.Endpoints = append(c.Endpoints, EndpointHists{Name: e.Name, Latency: e.Latency.Clone(), Service: e.Service.Clone()})
	}
	return c
}

// Completed is the responses that ended in the interval.
func (iv *Interval) Completed() int64 {
	var n int64
	for _, s := range iv.Series {
		n += s.Responses
	}
	return n
}

// Errors is the requests of the interval that were not ok, those a stop
// cut off left out (as the report's per-second errors are).
func (iv *Interval) Errors() int64 {
	var n int64
	for _, s := range iv.Series {
		if !cutOff(s.Error) {
			n += s.Requests - s.OK
		}
	}
	return n
}

// Latency is the corrected latency of every response of the interval.
func (iv *Interval) Latency() Hist {
	var h Hist
	for k := range iv.Endpoints {
		h.Merge(&iv.Endpoints[k].Latency)
	}
	return h
}
