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
	// SendLag is sent − scheduled of the requests sent that ended in it.
	SendLag Hist `json:"send_lag"`
}

// Series is one (endpoint or scenario step, status, error) of an
// interval: its counts, and the corrected latency and service time of its
// responses. The plan bounds how many there are: its endpoint and step
// names, times the statuses the server answers, times the error
// vocabulary.
type Series struct {
	Endpoint  string `json:"endpoint"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Requests  int64  `json:"requests"`
	OK        int64  `json:"ok"`
	Responses int64  `json:"responses"`
	BytesOut  int64  `json:"bytes_out"`
	BytesIn   int64  `json:"bytes_in"`
	Latency   Hist   `json:"latency"`
	Service   Hist   `json:"service"`
}

// Add counts o (of the same key: endpoint, status, error) in s.
func (s *Series) Add(o *Series) {
	s.Requests += o.Requests
	s.OK += o.OK
	s.Responses += o.Responses
	s.BytesOut += o.BytesOut
	s.BytesIn += o.BytesIn
	s.Latency.Merge(&o.Latency)
	s.Service.Merge(&o.Service)
}

// Clone is a copy of s sharing nothing with it.
func (s *Series) Clone() Series {
	c := *s
	c.Latency, c.Service = s.Latency.Clone(), s.Service.Clone()
	return c
}

func compareSeries(a, b Series) int {
	return cmp.Or(cmp.Compare(a.Endpoint, b.Endpoint), cmp.Compare(a.Status, b.Status), cmp.Compare(a.Error, b.Error))
}

// Merge adds o (of the same or a later part of a wider interval) to iv.
func (iv *Interval) Merge(o *Interval) {
	iv.Due += o.Due
	iv.Series = SumSeries([]Interval{{Series: iv.Series}, *o})
	iv.SendLag.Merge(&o.SendLag)
}

// Clone is a copy of iv sharing nothing with it.
func (iv *Interval) Clone() Interval {
	c := Interval{Start: iv.Start, Width: iv.Width, Due: iv.Due, SendLag: iv.SendLag.Clone()}
	for k := range iv.Series {
		c.Series = append(c.Series, iv.Series[k].Clone())
	}
	return c
}

// SumSeries sums each (endpoint, status, error) over ivs: what the run
// did so far by series, sorted as an interval's.
func SumSeries(ivs []Interval) []Series {
	var out []Series
	for k := range ivs {
		for j := range ivs[k].Series {
			s := &ivs[k].Series[j]
			p, found := slices.BinarySearchFunc(out, *s, compareSeries)
			if !found {
				out = slices.Insert(out, p, Series{Endpoint: s.Endpoint, Status: s.Status, Error: s.Error})
			}
			out[p].Add(s)
		}
	}
	return out
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
	for k := range iv.Series {
		h.Merge(&iv.Series[k].Latency)
	}
	return h
}
