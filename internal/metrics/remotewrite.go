package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Remote Write 1.0's WriteRequest, encoded by hand with protowire: the
// four messages below are the whole of it, and prometheus/prometheus's
// prompb would bring the server's dependencies along.
//
//	message WriteRequest { repeated TimeSeries timeseries = 1; }
//	message TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
//	message Label        { string name = 1; string value = 2; }
//	message Sample       { double value = 1; int64 timestamp = 2; } // ms since the epoch

// Label is one name="value" of a series.
type Label struct{ Name, Value string }

// TimeSeries is one series' labels (sorted by name, __name__ first, as
// the spec asks) and samples (in time order).
type TimeSeries struct {
	Labels  []Label
	Samples []Sample
}

// Sample is one value at a time in ms since the Unix epoch.
type Sample struct {
	Value float64
	Time  int64
}

// appendWriteRequest appends the encoded WriteRequest of ts to b.
func appendWriteRequest(b []byte, ts []TimeSeries) []byte {
	var msg []byte
	for i := range ts {
		msg = msg[:0]
		for _, l := range ts[i].Labels {
			var lb []byte
			lb = protowire.AppendTag(lb, 1, protowire.BytesType)
			lb = protowire.AppendString(lb, l.Name)
			lb = protowire.AppendTag(lb, 2, protowire.BytesType)
			lb = protowire.AppendString(lb, l.Value)
			msg = protowire.AppendTag(msg, 1, protowire.BytesType)
			msg = protowire.AppendBytes(msg, lb)
		}
		for _, s := range ts[i].Samples {
			var sb []byte
			sb = protowire.AppendTag(sb, 1, protowire.Fixed64Type)
			sb = protowire.AppendFixed64(sb, math.Float64bits(s.Value))
			sb = protowire.AppendTag(sb, 2, protowire.VarintType)
			sb = protowire.AppendVarint(sb, uint64(s.Time))
			msg = protowire.AppendTag(msg, 2, protowire.BytesType)
			msg = protowire.AppendBytes(msg, sb)
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, msg)
	}
	return b
}

// Series lists snap as remote-write series at time ms, each with the
// run's labels; the histograms as _bucket (with le), _sum and _count.
func Series(snap *Snapshot, l *Labels, runID string, ms int64) []TimeSeries {
	var out []TimeSeries
	add := func(name string, v float64, extra ...Label) {
		labels := []Label{{"__name__", name}, {labelPlan, l.Plan}, {labelRunID, runID}, {labelShard, l.Shard}}
		labels = append(labels, extra...)
		slices.SortFunc(labels[1:], func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, TimeSeries{Labels: labels, Samples: []Sample{{v, ms}}})
	}
	for _, r := range snap.Requests {
		add(RequestsTotal, float64(r.Value), Label{labelTarget, r.Target}, Label{labelEndpoint, r.Endpoint},
			Label{labelStatus, strconv.Itoa(r.Status)}, Label{labelError, r.Error})
	}
	for name, hs := range map[string][]Histogram{RequestDuration: snap.Request, ServiceDuration: snap.Service} {
		for _, h := range hs {
			ep := []Label{{labelTarget, h.Target}, {labelEndpoint, h.Endpoint}, {labelStatus, strconv.Itoa(h.Status)}, {labelError, h.Error}}
			for i, b := range Bounds {
				add(name+"_bucket", float64(h.Counts[i]), append(slices.Clone(ep), Label{"le", formatBound(b)})...)
			}
			add(name+"_bucket", float64(h.Count), append(slices.Clone(ep), Label{"le", "+Inf"})...)
			add(name+"_sum", h.Sum, ep...)
			add(name+"_count", float64(h.Count), ep...)
		}
	}
	for name, v := range snap.gauges() {
		add(name, v)
	}
	return out
}

// formatBound writes a bucket bound as client_golang writes le.
func formatBound(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }
