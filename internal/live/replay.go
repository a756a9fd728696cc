package live

import (
	"fmt"

	"github.com/tressi/tressi/results"
)

// Replay folds finished runs' results files (the shards of one run, or one
// run) into the intervals the live aggregation would have shown at the
// end: the HTML report draws the dashboard's charts from them.
func Replay(paths []string) (width int64, ivs []Interval, err error) {
	agg := NewAggregator(0, 0)
	var names []string
	index := map[string]uint16{}
	for _, path := range paths {
		if err := replayFile(agg, path, &names, index); err != nil {
			return 0, nil, err
		}
	}
	agg.SetEndpoints(names)
	width, _, ivs = agg.Flush()
	return width, ivs, nil
}

func replayFile(agg *Aggregator, path string, names *[]string, index map[string]uint16) error {
	r, err := results.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	expect := r.Meta.Expect
	var row results.Row
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		eps := make([]uint16, len(b.EndpointNames))
		for i, name := range b.EndpointNames {
			k, seen := index[name]
			if !seen {
				k = uint16(len(*names))
				index[name] = k
				*names = append(*names, name)
			}
			eps[i] = k
		}
		kinds := make([]results.ErrorKind, len(b.ErrorNames))
		failed := make([]bool, len(b.ErrorNames))
		for i, word := range b.ErrorNames {
			kinds[i], _ = results.ParseErrorKind(word)
			failed[i] = word != "" // a word this tressi does not know is still an error, as in the report
		}
		for i := range b.Len {
			kind := kinds[b.Error[i]]
			if kind.NotRequest() {
				continue // no request: the recorder shows the live view none either
			}
			name := b.EndpointNames[b.Endpoint[i]]
			row = results.Row{Slot: b.Slot[i], Scheduled: b.Scheduled[i], Sent: b.Sent[i], Latency: b.Latency[i],
				Service: b.Service[i], BytesOut: b.BytesOut[i], BytesIn: b.BytesIn[i], Status: b.Status[i],
				Endpoint: eps[b.Endpoint[i]], Error: kind}
			ok := row.Latency >= 0 && !failed[b.Error[i]] && results.ExpectsStatus(expect[name], int(row.Status))
			agg.Observe(&row, ok)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
