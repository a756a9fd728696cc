// Command benchlag reads a tressi results.arrow and prints, as one JSON
// object, what bench/run compares with other generators: rows, bytes on disk
// per row, and the send lag (sent_ns − scheduled_ns) percentiles that show
// whether the executor started requests when the schedule said.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/tressi/tressi/results"
)

// summary is benchlag's output.
type summary struct {
	Rows        int     `json:"rows"`
	Bytes       int64   `json:"bytes"`
	BytesPerRow float64 `json:"bytes_per_row"`
	NotSent     int     `json:"not_sent"`
	LagP50Ms    float64 `json:"send_lag_p50_ms"`
	LagP99Ms    float64 `json:"send_lag_p99_ms"`
	LagMaxMs    float64 `json:"send_lag_max_ms"`
	// Stalls are the runs of sends over 1 ms late, in scheduled order:
	// what makes a p99 fail is usually a few of them, and when and how long
	// they were says what caused them.
	Stalls []stall `json:"stalls"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchlag RESULTS.arrow")
		os.Exit(1)
	}
	s, err := summarize(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchlag:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(s)
}

func summarize(path string) (summary, error) {
	var s summary
	fi, err := os.Stat(path)
	if err != nil {
		return s, err
	}
	s.Bytes = fi.Size()
	r, err := results.Open(path)
	if err != nil {
		return s, err
	}
	defer r.Close()
	var lags []int64
	var sent []lagRow
	for b, ok := r.Next(); ok; b, ok = r.Next() {
		s.Rows += b.Len
		for i := range b.Len {
			if b.Sent[i] < 0 {
				s.NotSent++
				continue
			}
			lag := b.Sent[i] - b.Scheduled[i]
			lags = append(lags, lag)
			sent = append(sent, lagRow{b.Scheduled[i], lag})
		}
	}
	if err := r.Err(); err != nil {
		return s, err
	}
	if s.Rows > 0 {
		s.BytesPerRow = float64(s.Bytes) / float64(s.Rows)
	}
	if len(lags) > 0 {
		slices.Sort(lags)
		s.LagP50Ms = ms(lags[rank(len(lags), 0.50)])
		s.LagP99Ms = ms(lags[rank(len(lags), 0.99)])
		s.LagMaxMs = ms(lags[len(lags)-1])
	}
	s.Stalls = stalls(sent)
	return s, nil
}

// rank is the nearest-rank index of quantile q among n sorted values.
func rank(n int, q float64) int {
	return min(n-1, max(0, int(q*float64(n)+0.999999)-1))
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }
