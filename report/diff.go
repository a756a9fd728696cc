package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/tressi/tressi/results"
)

// Diff compares two runs. For one schedule (same hash) it goes slot by
// slot: which slots failed in one run and not the other, by endpoint (or
// scenario step) and kind of failure, and how each endpoint's latency
// moved, down to the share of slots that got slower by more than a factor.
// For different schedules only the summaries can be compared, and Note says
// so.
type Diff struct {
	A            DiffSide `json:"a"`
	B            DiffSide `json:"b"`
	SameSchedule bool     `json:"same_schedule"`
	Note         string   `json:"note,omitempty"`
	// NewlyFailed are slots ok in A and failed in B; NewlyOK the reverse.
	NewlyFailed      []SlotGroup `json:"newly_failed"`
	NewlyOK          []SlotGroup `json:"newly_ok"`
	NewlyFailedSlots int64       `json:"newly_failed_slots"`
	NewlyOKSlots     int64       `json:"newly_ok_slots"`
	// SlowerFactor is the factor by which a slot's latency must grow to
	// count as slower.
	SlowerFactor float64         `json:"slower_factor"`
	Endpoints    []EndpointShift `json:"endpoints"`
	Gates        []GateResult    `json:"gates,omitempty"`
	Warnings     []string        `json:"warnings"`
}

// DiffSide is one run's summary, as the diff computed it.
type DiffSide struct {
	Path         string  `json:"path"`
	ScheduleHash string  `json:"schedule_hash"`
	Rows         int64   `json:"rows"`
	Slots        int64   `json:"slots"`
	FailedSlots  int64   `json:"failed_slots"` // slots with an error row (cut-off ones are not failures)
	Requests     int64   `json:"requests"`
	Errors       int64   `json:"errors"`
	ErrorRate    float64 `json:"error_rate"`
	// CutOff is the not_sent and interrupted rows: a stop's, neither ok
	// nor errors, as in the report (results.Counts).
	CutOff        int64       `json:"cut_off"`
	ThroughputRPS float64     `json:"throughput_rps"`
	Latency       Percentiles `json:"latency_ms"`
}

// SlotGroup is the slots of one endpoint and failure kind.
type SlotGroup struct {
	Endpoint string    `json:"endpoint"`
	Kind     string    `json:"kind"` // an error kind, or "status 503"
	Slots    int64     `json:"slots"`
	First    []SlotRef `json:"first"`
	// List is every slot of the group, in order, when there are at most
	// listSlots of them (machines read it; people read First).
	List []uint64 `json:"list,omitempty"`
}

// SlotRef is a slot and its due instant (ms after the run's start).
type SlotRef struct {
	Slot  uint64   `json:"slot"`
	DueMs *float64 `json:"due_ms,omitempty"`
}

// EndpointShift is one endpoint's latency in both runs.
type EndpointShift struct {
	Name string      `json:"name"`
	A    Percentiles `json:"a_latency_ms"`
	B    Percentiles `json:"b_latency_ms"`
	// Compared counts slots ok in both runs; Slower those whose latency in
	// B exceeds SlowerFactor times A's.
	Compared    int64   `json:"compared_slots"`
	Slower      int64   `json:"slower_slots"`
	SlowerShare float64 `json:"slower_share"`
}

// DiffOptions tune BuildDiff.
type DiffOptions struct {
	// SlowerFactor defaults to 2.
	SlowerFactor float64
	// Gates are --fail-on conditions.
	Gates []Gate
}

// firstSlots is how many slot numbers each group shows with due times;
// listSlots how many a group may hold to be listed whole.
const (
	firstSlots = 10
	listSlots  = 1000
)

// BuildDiff reads run a, then run b (run directories or results files),
// once each.
func BuildDiff(a, b string, opts DiffOptions) (*Diff, error) {
	return BuildDiffShards([]string{a}, []string{b}, opts)
}

// BuildDiffShards diffs two runs each given as one or more inputs: a run
// directory, a results file, or a directory of shard run directories; the
// inputs of a side are the shards of one run (one schedule, distinct
// stripes), whose slots are read as one run's.
func BuildDiffShards(a, b []string, opts DiffOptions) (*Diff, error) {
	if opts.SlowerFactor <= 1 {
		opts.SlowerFactor = 2
	}
	ina, err := diffInputs(a)
	if err != nil {
		return nil, err
	}
	inb, err := diffInputs(b)
	if err != nil {
		return nil, err
	}
	d := &Diff{SlowerFactor: opts.SlowerFactor, Warnings: []string{}}
	var sa, sb *sideTally
	if canLockstep(ina, inb) {
		// One schedule, one row per slot: both runs are read in step and
		// their slots paired a page at a time, so memory does not grow
		// with the number of slots.
		sa, sb, err = lockstepDiff(strings.Join(a, ","), strings.Join(b, ","), ina[0], inb[0], opts.SlowerFactor)
		if err != nil && !errors.Is(err, errLateRows) {
			return nil, err
		}
		d.SameSchedule = err == nil
	}
	if !d.SameSchedule {
		if sa, err = readDiffSide(strings.Join(a, ","), ina, nil, opts.SlowerFactor); err != nil {
			return nil, err
		}
		d.SameSchedule = sa.side.ScheduleHash != "" && sa.side.ScheduleHash == peekHash(inb[0])
		var ref *sideTally
		if d.SameSchedule {
			ref = sa
		} else {
			sa.lat = nil // only the summaries are compared
		}
		if sb, err = readDiffSide(strings.Join(b, ","), inb, ref, opts.SlowerFactor); err != nil {
			return nil, err
		}
	}
	d.A = sa.side
	d.Warnings = append(d.Warnings, sa.warnings...)
	d.B = sb.side
	d.Warnings = append(d.Warnings, sb.warnings...)
	if !d.SameSchedule {
		d.Note = fmt.Sprintf("different schedules (%s and %s): slots cannot be matched, so only the summaries are compared", short(d.A.ScheduleHash), short(d.B.ScheduleHash))
	}
	if d.SameSchedule && sa.model == "closed" {
		d.Note = "closed model: slot k is the k-th request (or session) the users started in each run, so a slot of A and the same slot of B need not be the same request"
	}
	d.Endpoints = endpointShifts(sa, sb)
	if d.SameSchedule {
		// A slot a stop cut off is neither ok nor failed, in either run.
		aOK := roaring64.AndNot(roaring64.AndNot(sa.seen, sa.failed), sa.cut)
		bOK := roaring64.AndNot(roaring64.AndNot(sb.seen, sb.failed), sb.cut)
		newlyFailed := roaring64.And(sb.failed, aOK)
		newlyOK := roaring64.And(sa.failed, bOK)
		d.NewlyFailedSlots = int64(newlyFailed.GetCardinality())
		d.NewlyOKSlots = int64(newlyOK.GetCardinality())
		d.NewlyFailed = slotGroups(sb, newlyFailed)
		d.NewlyOK = slotGroups(sa, newlyOK)
	}
	d.Gates = EvaluateGates(opts.Gates, d)
	return d, nil
}

// diffInputs resolves one side's paths; a directory holding no results
// but run directories that do (shard-0, shard-1, …) stands for them all.
func diffInputs(paths []string) ([]Input, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no inputs: pass a run directory, a results file or an archive for each side")
	}
	var out []Input
	for _, p := range paths {
		if shards := shardDirs(p); len(shards) > 0 {
			for _, s := range shards {
				in, err := ResolveInput(s)
				if err != nil {
					return nil, err
				}
				out = append(out, in)
			}
			continue
		}
		in, err := ResolveInput(p)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// shardDirs lists the run directories directly inside dir when dir itself
// has no results file; nil otherwise.
func shardDirs(dir string) []string {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() || exists(filepath.Join(dir, ResultsFile)) {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries { // ReadDir sorts by name
		if p := filepath.Join(dir, e.Name()); e.IsDir() && exists(filepath.Join(p, ResultsFile)) {
			out = append(out, p)
		}
	}
	return out
}

// peekHash reads a run's schedule hash from its results' metadata.
func peekHash(in Input) string {
	r, err := results.Open(in.Results)
	if err != nil {
		return ""
	}
	defer r.Close()
	return r.Meta.ScheduleHash
}

// GatesFailed says whether a --fail-on condition holds.
func (d *Diff) GatesFailed() bool {
	for _, g := range d.Gates {
		if g.Holds {
			return true
		}
	}
	return false
}

// groupKey is (endpoint, failure kind).
type groupKey struct{ endpoint, kind string }

// sideTally is one run read for a diff.
type sideTally struct {
	side     DiffSide
	warnings []string
	model    string            // from plan.tplan; "" when there is none
	seen     *roaring64.Bitmap // every slot the side holds, made from gather in finish
	gather   *slotSet
	failed   *roaring64.Bitmap
	cut      *roaring64.Bitmap // slots with a row a stop cut off: neither ok nor failed
	groups   map[groupKey]*failGroup
	latency  *latencyHistogram
	eps      map[string]*epDiff
	// lat holds each slot's slowest ok latency in µs + 1 (0: none), so
	// run B can compare slot by slot; nil when not needed.
	lat *slotTable

	completed         int64 // rows with a response
	firstDue, lastEnd int64
	shards            []results.Shard     // of each input
	inputRows         int64               // rows before the current input
	epOf              []*epDiff           // the batch's endpoint indices
	kinds             []results.ErrorKind // the batch's error names as kinds
	counts            results.Counts      // the rows by outcome, results' one definition
	ok                []okRow             // the batch's ok rows
	contiguous        bool                // the batch's slots climb by one
}

type epDiff struct {
	latency          *latencyHistogram
	compared, slower int64
	expect           []int
	expected         [denseStatuses]bool // ExpectsStatus, precomputed per status
}

func newEpDiff(expect []int) *epDiff {
	e := &epDiff{latency: newLatencyHistogram(), expect: expect}
	for st := range e.expected {
		e.expected[st] = results.ExpectsStatus(expect, st)
	}
	return e
}

func (e *epDiff) expects(st int) bool {
	if st < denseStatuses {
		return e.expected[st]
	}
	return results.ExpectsStatus(e.expect, st)
}

// failGroup is the failed slots of one group and the smallest few of them
// with their due instants.
type failGroup struct {
	slots *roaring64.Bitmap
	first []SlotRef // sorted by slot, at most firstKeep
}

// firstKeep bounds the due instants kept per group: enough that the first
// slots of a regression are almost always among them.
const firstKeep = 256

func (g *failGroup) add(slot uint64, due int64) {
	if len(g.first) == firstKeep && slot >= g.first[firstKeep-1].Slot {
		return
	}
	i := sort.Search(len(g.first), func(i int) bool { return g.first[i].Slot >= slot })
	if i < len(g.first) && g.first[i].Slot == slot {
		return
	}
	dm := float64(due) / 1e6
	g.first = slices.Insert(g.first, i, SlotRef{Slot: slot, DueMs: &dm})
	if len(g.first) > firstKeep {
		g.first = g.first[:firstKeep]
	}
}

// maxDiffSlot bounds the per-slot latency table (4 bytes a slot).
const maxDiffSlot = 1 << 30

func newSideTally(path string) *sideTally {
	return &sideTally{
		side:   DiffSide{Path: path},
		gather: newSlotSet(), failed: roaring64.New(), cut: roaring64.New(), groups: map[groupKey]*failGroup{},
		latency: newLatencyHistogram(), eps: map[string]*epDiff{},
		firstDue: 1<<63 - 1, lastEnd: -1 << 63,
	}
}

// readDiffSide reads one side's inputs in turn. Side A (ref nil) keeps
// its per-slot latencies; side B compares its own with ref's.
func readDiffSide(path string, inputs []Input, ref *sideTally, factor float64) (*sideTally, error) {
	t := newSideTally(path)
	if ref == nil {
		t.lat = &slotTable{} // A keeps its latencies for B
	}
	for i, in := range inputs {
		r, err := t.open(i, inputs)
		if err != nil {
			return nil, err
		}
		for {
			b, ok := r.Next()
			if !ok {
				break
			}
			t.batch(b, r.Meta.Expect)
			for _, o := range t.ok {
				switch {
				case t.lat != nil && o.slot < maxDiffSlot:
					t.lat.maxAt(o.slot, o.us)
				case ref != nil && ref.lat != nil:
					if a := ref.lat.at(o.slot); a != 0 {
						o.ep.compared++
						if float64(o.us) > factor*float64(a) {
							o.ep.slower++
						}
					}
				}
			}
		}
		err = t.finishInput(r, in)
		r.Close()
		if err != nil {
			return nil, err
		}
	}
	return t, t.finish(inputs)
}

// open opens input i of the side: its schedule must be the side's, and
// only the columns the diff reads are decoded.
func (t *sideTally) open(i int, inputs []Input) (*results.Reader, error) {
	in := inputs[i]
	r, err := results.Open(in.Results)
	if err != nil {
		return nil, err
	}
	if i == 0 {
		t.side.ScheduleHash = r.Meta.ScheduleHash
		if info, err := RunPlan(in, r.Meta); err != nil {
			t.warnings = append(t.warnings, err.Error())
		} else if info != nil {
			t.model = info.Model
		}
	} else if r.Meta.ScheduleHash != t.side.ScheduleHash {
		r.Close()
		return nil, fmt.Errorf("%s (schedule hash %q) and %s (schedule hash %q) come from different schedules: the inputs of one side must be shards of one run", inputs[0].Path, t.side.ScheduleHash, in.Path, r.Meta.ScheduleHash)
	}
	t.shards = append(t.shards, r.Meta.Shard)
	t.inputRows = t.side.Rows
	// Of eleven columns the diff needs six: the others are checked (the
	// body checksum) but not decompressed.
	if err := r.Only(results.ColSlot, results.ColEndpoint, results.ColScheduled, results.ColLatency, results.ColStatus, results.ColError); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// finishInput notes how reading one input ended.
func (t *sideTally) finishInput(r *results.Reader, in Input) error {
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: %w", in.Results, err)
	}
	if r.Truncated != nil {
		t.warnings = append(t.warnings, fmt.Sprintf("%s: %v; the diff covers the %d rows before it", in.Results, r.Truncated, t.side.Rows-t.inputRows))
	}
	if r.Unchecked > 0 {
		t.warnings = append(t.warnings, fmt.Sprintf("%s: %d batches carry no checksum: damage inside them cannot be detected", in.Results, r.Unchecked))
	}
	return nil
}

// finish turns the side's counters into its summary.
func (t *sideTally) finish(inputs []Input) error {
	if len(inputs) > 1 {
		w, err := shardSetWarnings(inputs, t.shards)
		if err != nil {
			return err
		}
		t.warnings = append(t.warnings, w...)
	}
	t.seen, t.gather = t.gather.bitmap(), nil
	t.side.Slots = int64(t.seen.GetCardinality())
	t.side.FailedSlots = int64(t.failed.GetCardinality())
	t.side.Requests, t.side.CutOff = t.counts.Requests, t.counts.CutOff
	t.side.Errors, t.side.ErrorRate = t.counts.Errors(), t.counts.ErrorRate()
	if t.completed > 0 && t.lastEnd > t.firstDue {
		t.side.ThroughputRPS = float64(t.completed) / (float64(t.lastEnd-t.firstDue) / 1e9)
	}
	for _, e := range t.eps {
		t.latency.Merge(e.latency)
	}
	t.side.Latency = t.latency.Percentiles()
	return nil
}

// shardSetWarnings checks that the inputs of one side are distinct shards
// of one split (an error otherwise: their slots would be counted twice) and
// warns when some of the split's shards are not among them.
func shardSetWarnings(inputs []Input, shards []results.Shard) ([]string, error) {
	count := shards[0].Count
	held := map[int]string{}
	for i, s := range shards {
		if s.Count <= 1 || s.Count != count {
			return nil, fmt.Errorf("%s is shard %s and %s is shard %s: the inputs of one side must be distinct shards of one run (from apply --shard i/n)", inputs[0].Path, shards[0], inputs[i].Path, s)
		}
		if prev, ok := held[s.Index]; ok {
			return nil, fmt.Errorf("%s and %s are both shard %s: pass each shard once", prev, inputs[i].Path, s)
		}
		held[s.Index] = inputs[i].Path
	}
	if len(held) == count {
		return nil, nil
	}
	var missing []string
	for i := range count {
		if _, ok := held[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	return []string{fmt.Sprintf("%s: shard %s missing: the diff covers %d of %d shards", inputs[0].Path, strings.Join(missing, ", "), len(held), count)}, nil
}

// okRow is an ok row's slot, latency (µs + 1) and endpoint, kept for the
// slot-by-slot comparison.
type okRow struct {
	slot uint64
	us   uint32
	ep   *epDiff
}

// batch folds one batch into t; its ok rows are left in t.ok.
func (t *sideTally) batch(b *results.Batch, expect map[string][]int) {
	t.epOf = t.epOf[:0]
	for _, name := range b.EndpointNames {
		e := t.eps[name]
		if e == nil {
			e = newEpDiff(expect[name])
			t.eps[name] = e
		}
		t.epOf = append(t.epOf, e)
	}
	epOf := t.epOf
	t.kinds = t.kinds[:0]
	for _, name := range b.ErrorNames {
		k, _ := results.ParseErrorKind(name)
		t.kinds = append(t.kinds, k)
	}
	kinds := t.kinds
	n := b.Len
	t.contiguous = n > 0 && b.Slot[n-1]-b.Slot[0] == uint64(n-1) && contiguous(b.Slot)
	t.gather.addMany(b.Slot)
	t.ok = t.ok[:0]
	for i := 0; i < b.Len; i++ {
		ei, slot, lat := b.Endpoint[i], b.Slot[i], b.Latency[i]
		ep := epOf[ei]
		errName := b.ErrorNames[b.Error[i]]
		st := int(b.Status[i])
		due := b.Scheduled[i]
		t.firstDue = min(t.firstDue, due)
		isOK := errName == "" && lat >= 0 && ep.expects(st)
		if k := kinds[b.Error[i]]; k.NotRequest() || k.CutOff() {
			t.counts.Add(k, false) // no verdict on the server: neither ok nor a failed slot
			if k.CutOff() {
				t.cut.Add(slot)
			}
			continue
		}
		t.counts.Add(results.None, isOK)
		if lat >= 0 {
			t.completed++
			t.lastEnd = max(t.lastEnd, due+lat)
			ep.latency.Record(lat) // t.latency is merged from these in finish
		}
		if !isOK {
			kind := errName
			if kind == "" {
				kind = statusKind(st)
			}
			k := groupKey{b.EndpointNames[ei], kind}
			g := t.groups[k]
			if g == nil {
				g = &failGroup{slots: roaring64.New()}
				t.groups[k] = g
			}
			g.slots.Add(slot)
			g.add(slot, due)
			t.failed.Add(slot)
			continue
		}
		t.ok = append(t.ok, okRow{slot: slot, us: uint32(min(lat/1000, 1<<32-2)) + 1, ep: ep})
	}
	t.side.Rows += int64(b.Len)
}
