package metrics

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"pgregory.net/rapid"
)

// decodeWriteRequest reads a WriteRequest back, field by field, as a
// receiver does: what appendWriteRequest wrote must read as the series.
func decodeWriteRequest(b []byte) ([]TimeSeries, error) {
	var out []TimeSeries
	for len(b) > 0 {
		msg, rest, err := field(b, 1)
		if err != nil {
			return nil, err
		}
		b = rest
		var ts TimeSeries
		for len(msg) > 0 {
			num, typ, n := protowire.ConsumeTag(msg)
			if n < 0 || typ != protowire.BytesType {
				return nil, fmt.Errorf("bad tag in a series")
			}
			body, m := protowire.ConsumeBytes(msg[n:])
			if m < 0 {
				return nil, fmt.Errorf("bad bytes in a series")
			}
			msg = msg[n+m:]
			switch num {
			case 1:
				name, rest, err := field(body, 1)
				if err != nil {
					return nil, err
				}
				value, _, err := field(rest, 2)
				if err != nil {
					return nil, err
				}
				ts.Labels = append(ts.Labels, Label{string(name), string(value)})
			case 2:
				_, _, n := protowire.ConsumeTag(body)
				v, m := protowire.ConsumeFixed64(body[n:])
				_, _, k := protowire.ConsumeTag(body[n+m:])
				t, j := protowire.ConsumeVarint(body[n+m+k:])
				if n < 0 || m < 0 || k < 0 || j < 0 {
					return nil, fmt.Errorf("bad sample")
				}
				ts.Samples = append(ts.Samples, Sample{math.Float64frombits(v), int64(t)})
			}
		}
		out = append(out, ts)
	}
	return out, nil
}

func field(b []byte, want protowire.Number) (body, rest []byte, err error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 || num != want || typ != protowire.BytesType {
		return nil, nil, fmt.Errorf("want field %d", want)
	}
	body, m := protowire.ConsumeBytes(b[n:])
	if m < 0 {
		return nil, nil, fmt.Errorf("field %d cut short", want)
	}
	return body, b[n+m:], nil
}

func TestWriteRequestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var in []TimeSeries
		for range rapid.IntRange(0, 5).Draw(t, "series") {
			var ts TimeSeries
			for range rapid.IntRange(1, 4).Draw(t, "labels") {
				ts.Labels = append(ts.Labels, Label{rapid.String().Draw(t, "name"), rapid.String().Draw(t, "value")})
			}
			for range rapid.IntRange(1, 3).Draw(t, "samples") {
				ts.Samples = append(ts.Samples, Sample{rapid.Float64().Draw(t, "v"), rapid.Int64Range(0, 1<<50).Draw(t, "t")})
			}
			in = append(in, ts)
		}
		out, err := decodeWriteRequest(appendWriteRequest(nil, in))
		if err != nil || fmt.Sprint(out) != fmt.Sprint(in) {
			t.Fatalf("read back %v, %v; wrote %v", out, err, in)
		}
	})
}

// Every series carries the run's labels, sorted, __name__ first; the
// histograms end with +Inf equal to their count.
func TestSeriesLabels(t *testing.T) {
	snap := Snapshot{
		Requests: []Counter{{Target: "t", Endpoint: "home", Status: 200, Value: 7}},
		Request:  []Histogram{{Target: "t", Endpoint: "home", Status: 200, Counts: make([]int64, len(Bounds)), Count: 7, Sum: 0.1}},
		Service:  []Histogram{{Target: "t", Endpoint: "home", Status: 200, Counts: make([]int64, len(Bounds)), Count: 7, Sum: 0.1}},
	}
	ts := Series(&snap, &Labels{Plan: "p", Shard: "1/4"}, "abc", 1000)
	if want := 1 + 2*(len(Bounds)+3) + 6; len(ts) != want { // a counter, two histograms, the gauges
		t.Fatalf("%d series, want %d", len(ts), want)
	}
	for _, s := range ts {
		if s.Labels[0].Name != "__name__" {
			t.Fatalf("labels %v do not start with __name__", s.Labels)
		}
		has := map[string]string{}
		for i, l := range s.Labels {
			if i > 0 && l.Name <= s.Labels[i-1].Name {
				t.Fatalf("labels %v are not sorted", s.Labels)
			}
			has[l.Name] = l.Value
		}
		if has["run_id"] != "abc" || has["plan"] != "p" || has["shard"] != "1/4" {
			t.Fatalf("series %v lacks the run's labels", s.Labels)
		}
		if strings.HasPrefix(has["__name__"], "tressi_request_duration_seconds") && (has["endpoint"] != "home" || has["status"] != "200") {
			t.Fatalf("histogram series %v lacks its endpoint and status", s.Labels)
		}
		if has["le"] == "+Inf" && s.Samples[0].Value != 7 {
			t.Fatalf("+Inf bucket %v, want the count 7", s.Samples)
		}
	}
}

func TestParseHeaders(t *testing.T) {
	h, err := ParseHeaders([]string{"Authorization: Bearer x", "X-Scope-OrgID:tenant"})
	if err != nil || h.Get("Authorization") != "Bearer x" || h.Get("X-Scope-Orgid") != "tenant" {
		t.Fatalf("%v %v", h, err)
	}
	if _, err := ParseHeaders([]string{"Authorization Bearer secret"}); err == nil || fmt.Sprint(err) != `header "(redacted)": want Name: value, such as "Authorization: Bearer …"` {
		t.Fatalf("err %v", err)
	}
}
