// Package synth makes synthetic result files whose truth is known: a slot's
// rows are a pure function of (seed, slot), so a test can recompute any row,
// a shard holds exactly the rows of the whole run with its stripe's slots,
// and benchmarks can write millions of rows without holding them.
package synth

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/tressi/tressi/results"
)

// Endpoints are the synthetic run's endpoints; Row.Endpoint indexes them.
var Endpoints = []string{"home", "create", "s.login"}

// Expect is the synthetic plan's expectations: create answers 201.
var Expect = map[string][]int{"create": {201}}

// Spec describes a synthetic run.
type Spec struct {
	Rows  int     // slots in the whole schedule
	Seed  uint64  // same seed, same rows
	Rate  float64 // requests per second (open model, uniform arrivals)
	Shard results.Shard
	Hash  string // schedule hash written into the metadata
	// Sessions makes about a quarter of the slots scenario sessions (see
	// SessionRows) and writes Meta.Scenarios.
	Sessions bool
	// KnownSlots writes Rows as the schedule's slot count (Meta.Slots), as
	// tressi does for an open-model run: a report then counts the slots
	// without a row, which needs the slot column.
	KnownSlots bool
	// BatchRows is the rows per record batch; 0 means results.BatchRows.
	// Small batches split sessions across batches.
	BatchRows int
}

// Meta is the results metadata of s.
func (s Spec) Meta() results.Meta {
	hash := s.Hash
	if hash == "" {
		hash = fmt.Sprintf("synthetic-%d-%d", s.Seed, s.Rows)
	}
	m := results.Meta{
		Version: "synthetic", RunID: fmt.Sprintf("synth-%d", s.Seed), StartUnixNs: 1767225600000000000,
		ScheduleHash: hash, Seed: s.Seed, Shard: s.Shard, PlanName: "synthetic", Expect: Expect,
	}
	if s.Sessions {
		m.Scenarios = Scenarios
	}
	if s.KnownSlots {
		m.Slots = int64(s.Rows)
	}
	return m
}

// EndpointNames are the endpoints of s's results file; Row.Endpoint
// indexes them.
func (s Spec) EndpointNames() []string {
	if s.Sessions {
		return sessionEndpoints
	}
	return Endpoints
}

// SlotRows is slot k's rows: one request, or a session's requests.
func (s Spec) SlotRows(k uint64) []results.Row {
	if s.Sessions && isSession(s.Seed, k) {
		return SessionRows(s.Seed, s.Rate, k)
	}
	return []results.Row{Row(s.Seed, s.Rate, k)}
}

// rng is splitmix64: a counter-based generator, so row k needs no state
// from rows before it.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// Row is slot k of the run with seed.
func Row(seed uint64, rate float64, k uint64) results.Row {
	g := rng{s: seed*0x2545f4914f6cdd1d ^ k}
	g.next()
	due := int64(float64(k) * 1e9 / rate)
	row := results.Row{Slot: k, Scheduled: due, BytesOut: 90}
	switch u := g.float(); {
	case u < 0.6:
		row.Endpoint = 0
	case u < 0.9:
		row.Endpoint = 1
	default:
		row.Endpoint = 2
	}
	queue := int64(g.next() % 50_000) // ns between due and sent
	// Log-normal latency around 2 ms with a 0.5% stalled tail.
	n := math.Sqrt(-2*math.Log(1-g.float())) * math.Cos(2*math.Pi*g.float())
	lat := int64(2e6*math.Exp(0.8*n)) + queue
	if g.float() < 0.005 {
		lat *= 20
	}
	switch u := g.float(); {
	case u < 0.0005:
		row.Error, row.Sent, row.Latency, row.Service = results.NotSent, -1, -1, -1
		row.BytesOut = 0
		return row
	case u < 0.0035:
		row.Error, row.Sent, row.Latency, row.Service = results.Timeout, due+queue, -1, -1
		return row
	case u < 0.0045:
		row.Error, row.Sent, row.Latency, row.Service = results.Reset, due+queue, -1, -1
		return row
	case u < 0.0050:
		row.Error = results.CaptureFailed // a response arrived, but is not ok
	}
	row.Sent = due + queue
	row.Latency = lat
	row.Service = lat - queue
	row.Status = status(row.Endpoint, g.float())
	row.BytesIn = uint32(200 + g.next()%1800)
	return row
}

func status(endpoint uint16, u float64) uint16 {
	ok := [...]uint16{200, 201, 200}[endpoint]
	switch {
	case u < 0.97:
		return ok
	case u < 0.99:
		return [...]uint16{404, 409, 401}[endpoint]
	case u < 0.995:
		return 500
	default:
		return 503
	}
}

// Owns reports whether s's shard holds slot k (striping: k mod n).
func (s Spec) Owns(k uint64) bool {
	return s.Shard.Owns(k)
}

// WriteRun writes s as a run directory: results.arrow, samples.arrow and
// meta.json. It returns the number of rows written.
func WriteRun(dir string, s Spec) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n, err := WriteResults(filepath.Join(dir, "results.arrow"), s)
	if err != nil {
		return n, err
	}
	if err := writeSamples(filepath.Join(dir, "samples.arrow")); err != nil {
		return n, err
	}
	meta, _ := json.MarshalIndent(map[string]any{"tressi_version": "synthetic", "go_version": "go1.26", "cpus": 2}, "", "  ")
	return n, os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o644)
}

// sessionLag is how many slots later the second half of a session's rows
// is written: an executor records rows as responses arrive, so sessions
// interleave and one session's rows can land in different batches.
const sessionLag = 64

// WriteResults writes s's rows to one results file, batch by batch.
func WriteResults(path string, s Spec) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w, err := results.NewWriter(f, s.Meta(), s.EndpointNames())
	if err != nil {
		return 0, err
	}
	size := s.BatchRows
	if size <= 0 {
		size = results.BatchRows
	}
	batch := make([]results.Row, 0, size)
	written := 0
	emit := func(rows []results.Row) error {
		for _, r := range rows {
			batch = append(batch, r)
			if len(batch) == cap(batch) {
				if err := w.Write(batch); err != nil {
					return err
				}
				written += len(batch)
				batch = batch[:0]
			}
		}
		return nil
	}
	type delayed struct {
		at   uint64
		rows []results.Row
	}
	var later []delayed // in order of at
	for k := uint64(0); k < uint64(s.Rows); k++ {
		for len(later) > 0 && later[0].at <= k {
			if err := emit(later[0].rows); err != nil {
				return written, err
			}
			later = later[1:]
		}
		if !s.Owns(k) {
			continue
		}
		rows := s.SlotRows(k)
		half := (len(rows) + 1) / 2
		if len(rows) > 1 {
			later = append(later, delayed{k + sessionLag, rows[half:]})
			rows = rows[:half]
		}
		if err := emit(rows); err != nil {
			return written, err
		}
	}
	for _, d := range later {
		if err := emit(d.rows); err != nil {
			return written, err
		}
	}
	if err := w.Write(batch); err != nil {
		return written, err
	}
	written += len(batch)
	if err := w.Close(); err != nil {
		return written, err
	}
	return written, f.Close()
}

func writeSamples(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	err = results.WriteSamples(f, []results.Sample{
		{Endpoint: "home", Status: 200, Headers: "Content-Type: text/html", Body: []byte("<html><body>welcome home</body></html>"), BodySize: 38},
		{Endpoint: "create", Status: 409, Headers: "Content-Type: application/json", Body: []byte(`{"error":"already exists"}`), BodySize: 26},
		{Endpoint: "home", Status: 0, Error: "timeout"},
	})
	if err != nil {
		return err
	}
	return f.Close()
}
