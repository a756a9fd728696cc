// Package report turns Arrow result files into reports: one streaming pass
// over the rows builds a Summary (global, per endpoint, per status, error
// kinds, latency percentiles, a per-second series), and renderers write it as
// text, Markdown, JSON, CSV (raw rows), HTML or XLSX. Several inputs are
// shards of one run and are merged row by row, never by averaging.
package report

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/tressi/tressi/results"
)

// Options tune Build.
type Options struct {
	// Baseline, when set, is another run (or its shards) to compare with.
	Baseline []string
	// Thresholds are the plan's; nil reports none.
	Thresholds *results.Thresholds
}

// Report is a run's summary, optionally beside a baseline's.
type Report struct {
	Summary
	Baseline *Summary `json:"baseline,omitempty"`
	Delta    *Delta   `json:"delta,omitempty"`

	inputs []Input
}

// Build reads paths (run directories or results files; several are shards
// of one run) and summarises them. A truncated file is read up to its last
// complete batch and noted in Warnings; inputs from different schedules or
// holding the same slots are an error.
func Build(paths []string, opts Options) (*Report, error) {
	inputs, err := resolveAll(paths)
	if err != nil {
		return nil, err
	}
	cur, err := summarize(inputs, opts.Thresholds)
	if err != nil {
		return nil, err
	}
	rep := &Report{Summary: *cur, inputs: inputs}
	for _, in := range inputs {
		ws, err := results.ReadWebSocketSummary(filepath.Dir(in.Results))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		if ws != nil && rep.WebSocket == nil {
			rep.WebSocket = ws
		} else if ws != nil {
			rep.WebSocket.Merge(ws)
		}
	}
	if len(opts.Baseline) > 0 {
		binputs, err := resolveAll(opts.Baseline)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		base, err := summarize(binputs, opts.Thresholds)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		rep.Baseline = base
		rep.Delta = NewDelta(cur, base)
	}
	return rep, nil
}

func resolveAll(paths []string) ([]Input, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no inputs: pass a run directory or a results file")
	}
	inputs := make([]Input, len(paths))
	for i, p := range paths {
		in, err := ResolveInput(p)
		if err != nil {
			return nil, err
		}
		inputs[i] = in
	}
	return inputs, nil
}

// summarize is the single pass over every input's rows.
func summarize(inputs []Input, th *results.Thresholds) (*Summary, error) {
	readers, err := openInputs(inputs)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	metas := make([]results.Meta, len(readers))
	for i, r := range readers {
		metas[i] = r.Meta
	}
	var shards *shardCheck
	if needsShardCheck(metas) || knowsSlots(metas) {
		shards = newShardCheck(inputs, metas)
	}
	tallies := make([]*tally, tallyWorkers())
	for w := range tallies {
		tallies[w] = newTally()
	}
	var warnings []string
	var infos []ShardInfo
	var envFirst map[string]any
	var protocols, streams map[string]map[string]int64
	var partial bool
	var missingAll int64
	slots := shards != nil
	for i, r := range readers {
		for _, t := range tallies {
			if err := t.sessions.use(r.Meta.Scenarios); err != nil {
				return nil, fmt.Errorf("%s: %w", inputs[i].Results, err)
			}
		}
		slots = slots || len(r.Meta.Scenarios) > 0
	}
	// The slot column is read only to tell sessions apart and to count
	// the slots each shard holds; a plain run's report does without it.
	for _, r := range readers {
		cols := reportColumns
		if slots {
			cols = append([]string{results.ColSlot}, cols...)
		}
		if len(r.Schema.FieldIndices(results.ColService)) > 0 {
			// Files written before service_ns was derived: as they say.
			cols = append(cols, results.ColService)
		}
		if err := r.Only(cols...); err != nil {
			return nil, err
		}
	}
	for i, r := range readers {
		rows, w, err := readInput(i, inputs[i], r, tallies, shards)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", inputs[i].Results, err)
		}
		warnings = append(warnings, w...)
		info := ShardInfo{Path: inputs[i].Path, Shard: r.Meta.Shard.String(), Rows: rows, Truncated: r.Truncated != nil}
		env, err := readEnvironment(inputs[i])
		if err != nil {
			warnings = append(warnings, err.Error())
		}
		if i == 0 {
			envFirst = env
		}
		protocols = addProtocols(protocols, env)
		streams = addGRPCStreams(streams, env)
		held := roaring64.New()
		if shards != nil {
			shards.inputRead(i)
			held = shards.slots[i]
		}
		w, missing, part := completeness(inputs[i], r.Meta, held, info.Rows, runEndOf(env, inputs[i]))
		warnings = append(warnings, w...)
		info.MissingSlots = missing
		info.Truncated = info.Truncated || part
		partial = partial || part || info.Truncated
		missingAll += missing
		infos = append(infos, info)
	}
	warnings = append(warnings, integrityWarnings(inputs, readers)...)
	if shards != nil {
		if err := shards.disjoint(); err != nil {
			return nil, err
		}
		if needsShardCheck(metas) {
			warnings = append(warnings, shards.coverage()...)
			warnings = append(warnings, startSpread(inputs, metas)...)
		}
	}
	t := tallies[0]
	for _, o := range tallies[1:] {
		if err := t.merge(o); err != nil {
			return nil, err
		}
	}
	s := t.summary()
	s.Shards = infos
	m := metas[0]
	s.Run = RunInfo{PlanName: m.PlanName, RunID: m.RunID, ScheduleHash: m.ScheduleHash, StartUnixNs: m.StartUnixNs, Version: m.Version}
	s.Partial, s.MissingSlots = partial, missingAll
	s.Protocols = protocols
	s.GRPCStreams = streams
	if env := envFirst; env != nil {
		s.Run.Environment = env
		s.Checks = checkTallies(env)
		if s.TLS = tlsSummary(env); s.TLS != nil && len(s.TLS.InsecureSkipVerify) > 0 {
			warnings = append(warnings, fmt.Sprintf("certificates were not verified (insecure_skip_verify) for target %s",
				strings.Join(s.TLS.InsecureSkipVerify, ", ")))
		}
	}
	var sw []string
	s.Samples, sw = readSamples(inputs)
	s.Warnings = append(append([]string{}, warnings...), sw...)
	s.Thresholds = EvaluateThresholds(th, &s, t.latency)
	return &s, nil
}

// tallyWorkers is how many goroutines tally rows, each into a tally of
// its own (merged at the end): one a core. Tests set it.
var tallyWorkers = func() int { return runtime.GOMAXPROCS(0) }

// readInput folds input i's rows into the tallies, one a worker, and
// its slots into shards (when set) and the slot-row count of its
// schedule; it returns the rows read and what the input's end warns of.
func readInput(i int, in Input, r *results.Reader, tallies []*tally, shards *shardCheck) (int64, []string, error) {
	per, done := slotRowsOf(in, r.Meta)
	defer done()
	var rows atomic.Int64
	var mu sync.Mutex // the slot sets are one for all workers
	err := r.Each(len(tallies), func(w int, b *results.Batch) error {
		if err := tallies[w].add(b, r.Meta); err != nil {
			return err
		}
		rows.Add(int64(b.Len))
		if shards == nil && per == nil {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if shards != nil {
			shards.add(i, b.Slot)
		}
		if per != nil {
			per.Add(b.Slot)
		}
		return nil
	})
	if err == nil {
		err = r.Err()
	}
	if err != nil {
		return 0, nil, err
	}
	warnings := slotRowWarnings(in, per)
	if r.Truncated != nil {
		warnings = append(warnings, fmt.Sprintf("%s: %v; the report covers the %d rows before it", in.Results, r.Truncated, rows.Load()))
	}
	return rows.Load(), warnings, nil
}

// reportColumns are the columns the tally reads, the slot aside, and
// service_ns, which the tally derives as the reader would where the file
// does not store it: one pass over the columns instead of two.
var reportColumns = []string{results.ColEndpoint, results.ColScheduled, results.ColSent, results.ColLatency,
	results.ColStatus, results.ColError, results.ColBytesOut, results.ColBytesIn, results.ColConnect}

// Format is an output format of Render.
type Format string

// The formats of `tressi report --format`.
const (
	Text     Format = "text"
	Markdown Format = "md"
	JSON     Format = "json"
	CSV      Format = "csv"
	HTML     Format = "html"
	XLSX     Format = "xlsx"
)

// Formats lists every format, in the order help texts show them.
var Formats = []Format{Text, Markdown, JSON, CSV, HTML, XLSX}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown report format %q: use one of %s", s, strings.Join(names, ", "))
}

// Render writes the report in format f. CSV streams the raw rows of the
// inputs again (it is an export, not a summary).
func (r *Report) Render(w io.Writer, f Format) error {
	switch f {
	case Text:
		return r.WriteText(w)
	case Markdown:
		return r.WriteMarkdown(w)
	case JSON:
		return r.WriteJSON(w)
	case CSV:
		return r.WriteCSV(w)
	case HTML:
		return r.WriteHTML(w)
	case XLSX:
		return r.WriteXLSX(w)
	}
	_, err := ParseFormat(string(f))
	return err
}
