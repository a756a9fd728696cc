package compile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tressi/tressi/arrowmem"
	"github.com/tressi/tressi/ipcguard"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// A .tplan file is an Arrow IPC stream, so pyarrow, polars and DuckDB read
// it as they are: one row per slot (columns due_ns int64 and entry uint16),
// zstd-compressed record batches of TPlanBatch rows, and a JSON header in
// the schema metadata under TPlanMetadataKey with everything else: the
// request table, entries, targets, users, the plan's sources and the
// variable values it was compiled with.

// TPlanMetadataKey is the schema metadata key holding the JSON header.
const TPlanMetadataKey = "tressi.tplan"

// TPlanFormat is the header's format version. Format 2 moved the data
// rows and sources out of the header into blobs (tplan_blobs.go); format 1
// files are still read.
const TPlanFormat = 2

// TPlanBatch is the number of slots per record batch: 512 KiB of raw
// columns, far below the readers' message limits.
const TPlanBatch = 1 << 16

var tplanSchemaFields = []arrow.Field{
	{Name: "due_ns", Type: arrow.PrimitiveTypes.Int64},
	{Name: "entry", Type: arrow.PrimitiveTypes.Uint16},
}

// TPlan is a .tplan file read back: the schedule, streaming its slots from
// the file, and what is needed to compile it again.
type TPlan struct {
	Schedule *Schedule
	// Sources are the plan's files, keyed by path as given.
	Sources map[string][]byte
	// PlanPath is the plan file or directory within Sources.
	PlanPath string
	// Variables holds each non-sensitive variable's value; see Values.
	Variables map[string]TPlanVariable
	// Sensitive lists the variables whose values were left out. When it is
	// not empty the request table was left out too (it may hold their
	// values): the plan must be compiled again from Sources with those
	// variables supplied, and the new schedule's hash checked against
	// Schedule.Hash.
	Sensitive []string
}

// TPlanVariable is a variable's value in go-cty's JSON encoding.
type TPlanVariable struct {
	Type  json.RawMessage `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Values decodes the stored variable values.
func (t *TPlan) Values() (map[string]cty.Value, error) {
	out := make(map[string]cty.Value, len(t.Variables))
	for name, v := range t.Variables {
		ty, err := ctyjson.UnmarshalType(v.Type)
		if err != nil {
			return nil, fmt.Errorf("tplan variable %s: type: %w", name, err)
		}
		val, err := ctyjson.Unmarshal(v.Value, ty)
		if err != nil {
			return nil, fmt.Errorf("tplan variable %s: %w", name, err)
		}
		out[name] = val
	}
	return out, nil
}

// tplanHeader is the JSON header. Durations are in ns.
type tplanHeader struct {
	Format     int                      `json:"format"`
	Name       string                   `json:"name"`
	Hash       string                   `json:"schedule_hash"`
	Seed       uint64                   `json:"seed"`
	Model      string                   `json:"model"`
	Selection  string                   `json:"selection"`
	Arrival    string                   `json:"arrival,omitempty"`
	Count      int64                    `json:"count"`
	DurationNS int64                    `json:"duration_ns"`
	ThinkNS    int64                    `json:"think_ns"`
	Targets    []wireTarget             `json:"targets"`
	Requests   []wireRequest            `json:"requests,omitempty"`
	Entries    []wireEntry              `json:"entries"`
	Data       []wireData               `json:"data,omitempty"`
	Users      []wireUser               `json:"users,omitempty"`
	Thresholds wireThresholds           `json:"thresholds"`
	Sources    map[string][]byte        `json:"sources"`
	PlanPath   string                   `json:"plan_path,omitempty"`
	Variables  map[string]TPlanVariable `json:"variables,omitempty"`
	Sensitive  []string                 `json:"sensitive,omitempty"`
	// Blobs: Data and Sources are in the blob stream (format 2).
	Blobs bool `json:"blobs,omitempty"`
}

// WriteTPlan writes s, compiled from p, as a .tplan stream to w.
func WriteTPlan(w io.Writer, s *Schedule, p *plan.Plan) error {
	return writeTPlan(w, s, p, new(arrowmem.Recycler))
}

func writeTPlan(w io.Writer, s *Schedule, p *plan.Plan, mem memory.Allocator) error {
	h := tplanHeader{
		Format: TPlanFormat, Name: s.Name, Hash: s.Hash, Seed: s.Seed, Model: s.Model.String(),
		Selection: s.Selection, Arrival: s.Arrival, Count: s.Count,
		DurationNS: int64(s.Duration), ThinkNS: int64(s.Think),
		Targets: mapSlice(s.Targets, toWireTarget), Requests: mapSlice(s.Requests, toWireRequest),
		Entries: mapSlice(s.Entries, toWireEntry), Data: mapSlice(s.Data, toWireData), Users: mapSlice(s.Users, toWireUser),
		Thresholds: toWireThresholds(s.Thresholds), Sources: p.Sources, PlanPath: p.Path, Variables: map[string]TPlanVariable{},
	}
	for _, v := range p.Variables {
		if v.Sensitive {
			h.Sensitive = append(h.Sensitive, v.Name)
			continue
		}
		ty, err := ctyjson.MarshalType(v.Value.Type())
		if err != nil {
			return fmt.Errorf("tplan: variable %s: %w", v.Name, err)
		}
		val, err := ctyjson.Marshal(v.Value, v.Value.Type())
		if err != nil {
			return fmt.Errorf("tplan: variable %s: %w", v.Name, err)
		}
		h.Variables[v.Name] = TPlanVariable{Type: ty, Value: val}
	}
	if len(h.Sensitive) > 0 {
		h.Requests = nil
		h.Targets = mapSlice(redactTargets(s.Targets, p.Secrets), toWireTarget)
	}
	data, sources := h.Data, h.Sources
	h.Data, h.Sources, h.Blobs = nil, nil, true
	js, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("tplan: header: %w", err)
	}
	md := arrow.NewMetadata([]string{TPlanMetadataKey}, []string{string(js)})
	schema := arrow.NewSchema(tplanSchemaFields, &md)
	cw := &countingWriter{w: w}
	w = cw
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	dues := b.Field(0).(*array.Int64Builder)
	entries := b.Field(1).(*array.Uint16Builder)
	buf := make([]Slot, TPlanBatch)
	due := make([]int64, TPlanBatch)
	ent := make([]uint16, TPlanBatch)
	src := s.Slots()
	n := src.Next(buf)
	// The first batch (10 bytes a slot) tells whether the slots are worth
	// compressing: a closed model's none are not.
	iw := ipc.NewWriter(w, append(arrowmem.Zstd(10*n), ipc.WithSchema(schema), ipc.WithAllocator(mem))...)
	for ; n > 0; n = src.Next(buf) {
		for i, sl := range buf[:n] {
			due[i] = sl.Due()
			ent[i] = uint16(sl.Entry())
		}
		dues.AppendValues(due[:n], nil)
		entries.AppendValues(ent[:n], nil)
		rec := b.NewRecordBatch()
		err := iw.Write(rec)
		rec.Release()
		if err != nil {
			iw.Close()
			return fmt.Errorf("tplan: write: %w", err)
		}
	}
	if err := iw.Close(); err != nil {
		return fmt.Errorf("tplan: close: %w", err)
	}
	return writeBlobs(w, cw.n, data, sources, mem)
}

// redactTargets copies targets with the sensitive texts cut out of their
// addresses (a url of "http://${var.host}"): a replay compiles them again
// from the sources and the secrets given then.
func redactTargets(ts []Target, secrets plan.Secrets) []Target {
	out := append([]Target(nil), ts...)
	for i := range out {
		out[i].Name, out[i].Addr, out[i].Host = secrets.String(out[i].Name), secrets.String(out[i].Addr), secrets.String(out[i].Host)
	}
	return out
}

// ReadTPlan reads a .tplan stream. It checks the whole slot stream once:
// each slot's entry exists, due instants never go back, the count matches
// and, unless the request table was redacted, the recomputed hash equals the
// stored one. Afterwards each Schedule.Slots call reads the slots from r
// again, batch by batch; when r is an io.ReaderAt (an *os.File) streams are
// independent, otherwise one stream may be read at a time.
func ReadTPlan(r io.ReadSeeker) (*TPlan, error) {
	return readTPlan(r, memory.NewGoAllocator())
}

func readTPlan(r io.ReadSeeker, mem memory.Allocator) (tp *TPlan, err error) {
	defer ipcguard.Recover(&err) // a damaged .tplan is an error, never a crash
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("tplan: %w", err)
	}
	g := &tplanGen{mem: mem}
	if ra, ok := r.(io.ReaderAt); ok {
		g.reader = func() (io.Reader, error) { return io.NewSectionReader(ra, 0, size), nil }
	} else {
		g.reader = func() (io.Reader, error) {
			_, err := r.Seek(0, io.SeekStart)
			return r, err
		}
	}
	rd, err := g.newReader()
	if err != nil {
		return nil, err
	}
	h, err := decodeTPlanHeader(rd.Schema())
	rd.Release()
	if err != nil {
		return nil, err
	}
	if h.Blobs {
		if err := readBlobs(r, size, h, mem); err != nil {
			return nil, err
		}
	}
	s := &Schedule{
		Name: h.Name, Seed: h.Seed, Selection: h.Selection, Arrival: h.Arrival, Count: h.Count,
		Duration: time.Duration(h.DurationNS), Think: time.Duration(h.ThinkNS),
		Targets: mapSlice(h.Targets, fromWireTarget), Requests: mapSlice(h.Requests, fromWireRequest),
		Entries: mapSlice(h.Entries, fromWireEntry), Data: mapSlice(h.Data, fromWireData), Users: mapSlice(h.Users, fromWireUser),
		Thresholds: fromWireThresholds(h.Thresholds), Hash: h.Hash, gen: g,
	}
	switch h.Model {
	case plan.ModelOpen:
		s.Model = Open
	case plan.ModelClosed:
		s.Model = Closed
	default:
		return nil, fmt.Errorf("tplan: unknown model %q", h.Model)
	}
	if len(s.Entries) == 0 || len(s.Entries) > MaxEntries {
		return nil, fmt.Errorf("tplan: %d entries", len(s.Entries))
	}
	weights := make([]int, len(s.Entries))
	for i, e := range s.Entries {
		weights[i] = e.Weight
	}
	if s.sel, err = newSelector(s.Selection, weights, s.Seed); err != nil {
		return nil, fmt.Errorf("tplan: %w", err)
	}
	g.entries = len(s.Entries)

	src := g.stream()
	st, hash := scanSource(s, src)
	if src.err != nil {
		return nil, src.err
	}
	if st.count != h.Count {
		return nil, fmt.Errorf("tplan: holds %d slots, header says %d", st.count, h.Count)
	}
	if len(h.Sensitive) == 0 && hash != h.Hash {
		return nil, fmt.Errorf("tplan: schedule hash %s does not match the header's %s", hash, h.Hash)
	}
	s.stats = st
	return &TPlan{Schedule: s, Sources: h.Sources, PlanPath: h.PlanPath, Variables: h.Variables, Sensitive: h.Sensitive}, nil
}

// ReadTPlanThresholds reads only a .tplan's header for the plan's
// thresholds: what a report needs, without reading and checking every slot
// as ReadTPlan does.
func ReadTPlanThresholds(r io.Reader) (th results.Thresholds, err error) {
	defer ipcguard.Recover(&err)
	if r, err = ipcguard.Stream(r); err != nil {
		return th, fmt.Errorf("tplan: %w", err)
	}
	rd, err := ipc.NewReader(r, ipc.WithAllocator(ipcguard.Allocator))
	if err != nil {
		return th, fmt.Errorf("tplan: %w", err)
	}
	defer rd.Release()
	h, err := decodeTPlanHeader(rd.Schema())
	if err != nil {
		return th, err
	}
	return fromWireThresholds(h.Thresholds), nil
}

func decodeTPlanHeader(schema *arrow.Schema) (*tplanHeader, error) {
	if len(schema.Fields()) != len(tplanSchemaFields) {
		return nil, errors.New("tplan: not a tressi schedule: unexpected columns")
	}
	for i, f := range tplanSchemaFields {
		if got := schema.Field(i); got.Name != f.Name || !arrow.TypeEqual(got.Type, f.Type) {
			return nil, fmt.Errorf("tplan: column %d is %s %s, want %s %s", i, got.Name, got.Type, f.Name, f.Type)
		}
	}
	md := schema.Metadata()
	i := md.FindKey(TPlanMetadataKey)
	if i < 0 {
		return nil, errors.New("tplan: not a tressi schedule: no " + TPlanMetadataKey + " metadata")
	}
	var h tplanHeader
	if err := json.Unmarshal([]byte(md.Values()[i]), &h); err != nil {
		return nil, fmt.Errorf("tplan: header: %w", err)
	}
	if h.Format != TPlanFormat && h.Format != 1 {
		return nil, fmt.Errorf("tplan: format %d; this tressi reads formats 1 to %d", h.Format, TPlanFormat)
	}
	return &h, nil
}

// tplanGen streams slots from a .tplan file.
type tplanGen struct {
	reader  func() (io.Reader, error)
	mem     memory.Allocator
	entries int
}

func (g *tplanGen) newReader() (*ipc.Reader, error) {
	r, err := g.reader()
	if err != nil {
		return nil, fmt.Errorf("tplan: %w", err)
	}
	if r, err = ipcguard.Stream(r); err != nil {
		return nil, fmt.Errorf("tplan: %w", err)
	}
	rd, err := ipc.NewReader(r, ipc.WithAllocator(ipcguard.Bounded(g.mem)))
	if err != nil {
		return nil, fmt.Errorf("tplan: %w", err)
	}
	return rd, nil
}

func (g *tplanGen) open() SlotSource { return g.stream() }

func (g *tplanGen) stream() *tplanStream {
	rd, err := g.newReader()
	return &tplanStream{g: g, rd: rd, err: err}
}

// tplanStream is one pass over a .tplan's slots. A damaged file ends the
// stream early with err set; ReadTPlan has checked the whole file once.
type tplanStream struct {
	g     *tplanGen
	rd    *ipc.Reader
	dues  []int64
	ents  []uint16
	pos   int
	prev  int64
	err   error
	ended bool
}

// Next fills dst with the next slots from the file.
func (s *tplanStream) Next(dst []Slot) (n int) {
	defer func() {
		if v := recover(); v != nil {
			s.fail(fmt.Errorf("tplan: %w", ipcguard.Damage(v)))
		}
	}()
	for n < len(dst) && !s.ended {
		if s.pos == len(s.dues) && !s.advance() {
			break
		}
		for ; n < len(dst) && s.pos < len(s.dues); s.pos++ {
			due, e := s.dues[s.pos], int(s.ents[s.pos])
			if due < s.prev || due > MaxDue || e >= s.g.entries {
				s.fail(fmt.Errorf("tplan: slot with due %d ns and entry %d is out of order or range", due, e))
				return n
			}
			s.prev = due
			dst[n] = MakeSlot(due, e)
			n++
		}
	}
	return n
}

// advance moves to the next record batch; the reader keeps a batch alive
// until its next call, which is all the stream needs.
func (s *tplanStream) advance() bool {
	if s.err != nil || s.rd == nil {
		s.ended = true
		return false
	}
	if !s.rd.Next() {
		if err := s.rd.Err(); err != nil {
			s.fail(fmt.Errorf("tplan: %w", err))
		}
		s.finish()
		return false
	}
	rec := s.rd.RecordBatch()
	due, ok1 := rec.Column(0).(*array.Int64)
	ent, ok2 := rec.Column(1).(*array.Uint16)
	if !ok1 || !ok2 || due.NullN() > 0 || ent.NullN() > 0 {
		s.fail(errors.New("tplan: slot columns have the wrong type or nulls"))
		return false
	}
	s.dues, s.ents, s.pos = due.Int64Values(), ent.Uint16Values(), 0
	return true
}

// Err is the reading error that ended the stream early, if any.
func (s *tplanStream) Err() error { return s.err }

func (s *tplanStream) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.finish()
}

func (s *tplanStream) finish() {
	s.ended = true
	s.dues, s.ents, s.pos = nil, nil, 0
	if s.rd != nil {
		s.rd.Release()
		s.rd = nil
	}
}
