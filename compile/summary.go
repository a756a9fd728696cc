package compile

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Summary is what `tressi plan` tells about a schedule before it runs.
type Summary struct {
	Name  string `json:"name"`
	Model string `json:"model"`
	// Requests is the open model's number of requests: slots for
	// endpoints, sessions × requests per session for scenarios. The closed
	// model's depends on the server's speed and is 0.
	Requests int64 `json:"requests"`
	// Sessions counts the scenario sessions the open schedule starts.
	Sessions  int64   `json:"sessions,omitempty"`
	Slots     int64   `json:"slots"`
	DurationS float64 `json:"duration_s"`
	// PeakRate is the most slots started per second, over the timeline's
	// buckets (open model); the most concurrent users (closed model).
	PeakRate     float64           `json:"peak_rate"`
	Selection    string            `json:"selection"`
	Arrival      string            `json:"arrival,omitempty"`
	Seed         uint64            `json:"seed"`
	ScheduleHash string            `json:"schedule_hash"`
	Endpoints    []EndpointSummary `json:"endpoints"`
	Timeline     Timeline          `json:"timeline"`
	Users        *UsersSummary     `json:"users,omitempty"`
}

// EndpointSummary is one entry's part of the schedule.
type EndpointSummary struct {
	Name     string `json:"name"`
	Scenario bool   `json:"scenario,omitempty"`
	// Requests is the entry's slots, times its requests per session for a scenario.
	Requests int64 `json:"requests"`
	Sessions int64 `json:"sessions,omitempty"`
	// Share is the entry's fraction of the slots (open model) or its
	// selection weight's fraction (closed model).
	Share float64 `json:"share"`
}

// Timeline is the schedule over time: slots started per bucket (open
// model) or users active at each bucket's start (closed model).
type Timeline struct {
	BucketS float64 `json:"bucket_s"`
	Counts  []int64 `json:"counts"`
}

// UsersSummary is the closed model's user layout.
type UsersSummary struct {
	Peak  int `json:"peak"`
	Spans int `json:"spans"`
}

// Summarize describes a schedule. A compiled schedule carries the counts
// of its hashing pass; any other (read from a .tplan) is streamed once.
func Summarize(s *Schedule) Summary {
	sum := Summary{
		Name:         s.Name,
		Model:        s.Model.String(),
		DurationS:    s.Duration.Seconds(),
		Selection:    s.Selection,
		Arrival:      s.Arrival,
		Seed:         s.Seed,
		ScheduleHash: s.Hash,
	}
	st := s.stats
	if st == nil {
		st, _ = scan(s)
	}
	sum.Timeline.BucketS = float64(st.bucket) / 1e9
	if s.Model == Closed {
		summarizeClosed(s, st.bucket, &sum)
		return sum
	}
	sum.Slots = st.count
	sum.Timeline.Counts = st.buckets
	for i, e := range s.Entries {
		es := EndpointSummary{Name: e.Name, Scenario: e.Scenario, Requests: st.perEntry[i]}
		if e.Scenario {
			es.Sessions = st.perEntry[i]
			es.Requests = es.Sessions * int64(requestsPerSession(&e))
			sum.Sessions += es.Sessions
		}
		if st.count > 0 {
			es.Share = float64(st.perEntry[i]) / float64(st.count)
		}
		sum.Requests += es.Requests
		sum.Endpoints = append(sum.Endpoints, es)
	}
	for i, c := range st.buckets {
		width := sum.Timeline.BucketS
		if last := int64(s.Duration) - int64(i)*st.bucket; last < st.bucket && last > 0 {
			width = float64(last) / 1e9 // a short last bucket
		}
		if r := float64(c) / width; r > sum.PeakRate {
			sum.PeakRate = r
		}
	}
	return sum
}

// requestsPerSession counts a scenario's requests, repeats included.
func requestsPerSession(e *Entry) int { return int(SessionRows(e)) }

func summarizeClosed(s *Schedule, bucket int64, sum *Summary) {
	sel := s.sel
	if sel == nil {
		sel = s.newSelector()
	}
	for i, e := range s.Entries {
		// The selection rule's own share: round_robin ignores weights.
		sum.Endpoints = append(sum.Endpoints, EndpointSummary{Name: e.Name, Scenario: e.Scenario, Share: sel.share(i)})
	}
	// Peak concurrency: sweep span starts and stops in time order.
	type edge struct {
		at    int64
		delta int
	}
	edges := make([]edge, 0, 2*len(s.Users))
	for _, u := range s.Users {
		edges = append(edges, edge{u.Start, 1}, edge{u.Stop, -1})
	}
	sortEdges := func(a, b edge) int {
		if a.at != b.at {
			return cmpInt64(a.at, b.at)
		}
		return a.delta - b.delta // stops before starts at the same instant
	}
	slices.SortFunc(edges, sortEdges)
	level, peak := 0, 0
	for _, e := range edges {
		level += e.delta
		peak = max(peak, level)
	}
	sum.Users = &UsersSummary{Peak: peak, Spans: len(s.Users)}
	sum.PeakRate = float64(peak)
	for at := int64(0); at < int64(s.Duration) || at == 0; at += bucket {
		var n int64
		for _, u := range s.Users {
			if u.Start <= at && at < u.Stop {
				n++
			}
		}
		sum.Timeline.Counts = append(sum.Timeline.Counts, n)
	}
}

// WriteText writes the summary for a terminal: counts, duration, peak
// rate, each entry's part, a rate timeline and the hash.
func (s Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	dur := time.Duration(s.DurationS * 1e9).Round(time.Millisecond)
	fmt.Fprintf(&b, "Plan %q: %s model, %s selection", s.Name, s.Model, s.Selection)
	if s.Arrival != "" {
		fmt.Fprintf(&b, ", %s arrivals", s.Arrival)
	}
	fmt.Fprintf(&b, ", seed %d\n", s.Seed)
	if s.Model == "closed" {
		fmt.Fprintf(&b, "  users      peak %d over %v (%d spans)\n", s.Users.Peak, dur, s.Users.Spans)
	} else {
		fmt.Fprintf(&b, "  requests   %d", s.Requests)
		if s.Sessions > 0 {
			fmt.Fprintf(&b, " (%d sessions)", s.Sessions)
		}
		fmt.Fprintf(&b, " over %v\n", dur)
		fmt.Fprintf(&b, "  peak rate  %s/s\n", formatRate(s.PeakRate))
	}
	width := 4
	for _, e := range s.Endpoints {
		width = max(width, len(e.Name))
	}
	for _, e := range s.Endpoints {
		if s.Model == "closed" {
			fmt.Fprintf(&b, "    %-*s  %5.1f%%\n", width, e.Name, 100*e.Share)
			continue
		}
		fmt.Fprintf(&b, "    %-*s  %10d  %5.1f%%", width, e.Name, e.Requests, 100*e.Share)
		if e.Scenario {
			fmt.Fprintf(&b, "  (%d sessions)", e.Sessions)
		}
		b.WriteByte('\n')
	}
	label := "rate"
	if s.Model == "closed" {
		label = "users"
	}
	fmt.Fprintf(&b, "  %-9s  %s  (%v per bar)\n", label, sparkline(s.Timeline.Counts),
		time.Duration(s.Timeline.BucketS*1e9).Round(time.Millisecond))
	fmt.Fprintf(&b, "  schedule   sha256:%s\n", s.ScheduleHash)
	_, err := io.WriteString(w, b.String())
	return err
}

func formatRate(r float64) string {
	if r == float64(int64(r)) {
		return fmt.Sprintf("%d", int64(r))
	}
	return fmt.Sprintf("%.1f", r)
}

// sparkline draws counts as eighth-block bars scaled to the largest; an
// empty bucket is a space so idle periods stand out.
func sparkline(counts []int64) string {
	const bars = "▁▂▃▄▅▆▇█"
	var peak int64
	for _, c := range counts {
		peak = max(peak, c)
	}
	var b strings.Builder
	for _, c := range counts {
		if c == 0 || peak == 0 {
			b.WriteByte(' ')
			continue
		}
		i := int((c*8 - 1) / peak)
		b.WriteString(string([]rune(bars)[i]))
	}
	return b.String()
}
