// Package results is the Arrow contract between the executor, which writes
// one row per request outcome, and the reports, which read them back: the
// columns, their types, the schema metadata, a writer and a tolerant reader.
package results

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Column names of results.arrow, in order.
const (
	ColSlot      = "slot"
	ColEndpoint  = "endpoint"
	ColScheduled = "scheduled_ns"
	ColSent      = "sent_ns"
	ColLatency   = "latency_ns"
	ColService   = "service_ns"
	ColStatus    = "status"
	ColError     = "error"
	ColBytesOut  = "bytes_out"
	ColBytesIn   = "bytes_in"
	// ColConnect is optional: files written before it have no such column,
	// and readers treat it as 0.
	ColConnect = "connect_ns"
	// ColSlotDelta and ColScheduledDelta are how slot and scheduled_ns are
	// stored: each row's value minus the row's before it in the file (the
	// first row's minus 0), so a reader gets them back as running sums.
	// Files written before store slot and scheduled_ns themselves.
	ColSlotDelta      = "slot_delta"
	ColScheduledDelta = "scheduled_delta_ns"
)

// checksumsStream is KeyChecksums' value in files whose batches carry
// stream checksums.
const checksumsStream = "stream_crc32c"

// Schema metadata keys.
const (
	KeyVersion      = "tressi.version"
	KeyRunID        = "tressi.run_id"
	KeyStartUnixNs  = "tressi.start_unix_ns"
	KeyScheduleHash = "tressi.schedule_hash"
	KeySeed         = "tressi.seed"
	KeyShard        = "tressi.shard"
	KeyPlanName     = "tressi.plan_name"
	KeyExpect       = "tressi.expect"
	KeyScenarios    = "tressi.scenarios"
	KeySlots        = "tressi.slots"
	// KeyChecksums says which checksums the file's batches carry; tressi
	// writes checksumsStream: every batch after the first carries
	// KeyStreamSum (streamsum.go). Absent from older files.
	KeyChecksums = "tressi.checksums"
	// KeyProbe marks the results of one probe of a capacity search: a JSON
	// object the search package writes and reads (see docs/search.md).
	KeyProbe = "tressi.probe"
	// KeyGRPC lists, as a JSON array, the endpoints that are gRPC calls:
	// their status is a gRPC code (0 is OK), not an HTTP status.
	KeyGRPC = "tressi.grpc"
)

// Row is one request outcome. Times are ns after run start; -1 where the
// event never happened (never sent, no response).
type Row struct {
	Slot      uint64
	Scheduled int64
	Sent      int64
	Latency   int64 // corrected: response complete − scheduled
	// Service is response complete − sent, -1 without a response or a
	// send. The writer does not store it (readers derive it from the
	// other three), so it must be exactly that: Write refuses a row whose
	// Service says otherwise.
	Service  int64
	BytesOut uint32
	BytesIn  uint32
	// Connect is how long opening the connection took (TCP connect, plus
	// the TLS handshake on https) for the request that opened it; 0 for a
	// request that reused one or never got one.
	Connect  int64
	Status   uint16
	Endpoint uint16 // index into the writer's endpoint names
	Error    ErrorKind
}

// Meta is the run-level information kept in the schema metadata.
type Meta struct {
	Version      string
	RunID        string
	StartUnixNs  int64
	ScheduleHash string
	Seed         uint64
	Shard        Shard
	PlanName     string
	// Expect maps an endpoint to the statuses it expects; an endpoint not
	// named expects 200–399.
	Expect map[string][]int
	// Scenarios maps each scenario to the endpoint names of its steps, in
	// order ("login_and_browse" → ["login_and_browse.login", …]): rows of
	// these endpoints with one slot are one session.
	Scenarios map[string][]string
	// Slots is the number of slots in the whole schedule (all shards) when
	// it is known before the run (the open model), 0 otherwise. A file
	// that holds fewer of its shard's slots is from a run cut short.
	Slots int64
	// Probe is the capacity-search probe these rows belong to, as JSON;
	// empty outside a search.
	Probe string
	// GRPC names the endpoints that are gRPC calls: their status column
	// holds gRPC codes. Absent from older files and runs without gRPC.
	GRPC []string
}

// Shard is stripe Index of Count; the zero value means the whole schedule (0/1).
type Shard struct {
	Index, Count int
}

// Owns reports whether slot (or closed-model user) k belongs to the shard:
// k mod Count == Index. The zero Shard owns everything.
func (s Shard) Owns(k uint64) bool {
	return s.Count <= 1 || k%uint64(s.Count) == uint64(s.Index)
}

// Slots is how many of the first n slots (or users) the shard owns.
func (s Shard) Slots(n int64) int64 {
	if s.Count <= 1 {
		return n
	}
	own := n / int64(s.Count)
	if int64(s.Index) < n%int64(s.Count) {
		own++
	}
	return own
}

func (s Shard) String() string {
	if s.Count == 0 {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.Index, &sh.Count); err != nil || sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return sh, nil
}

// ExpectsStatus reports whether status counts as ok for an endpoint given
// its expected statuses (nil or empty: 200–399).
func ExpectsStatus(expect []int, status int) bool {
	if len(expect) == 0 {
		return status >= 200 && status <= 399
	}
	for _, s := range expect {
		if s == status {
			return true
		}
	}
	return false
}

func (m Meta) metadata() arrow.Metadata {
	expect := m.Expect
	if expect == nil {
		expect = map[string][]int{}
	}
	ej, _ := json.Marshal(expect) // a map of string to []int always marshals
	keys := []string{KeyVersion, KeyRunID, KeyStartUnixNs, KeyScheduleHash, KeySeed, KeyShard, KeyPlanName, KeyExpect}
	values := []string{m.Version, m.RunID, strconv.FormatInt(m.StartUnixNs, 10), m.ScheduleHash,
		strconv.FormatUint(m.Seed, 10), m.Shard.String(), m.PlanName, string(ej)}
	if m.Slots > 0 {
		keys = append(keys, KeySlots)
		values = append(values, strconv.FormatInt(m.Slots, 10))
	}
	if len(m.Scenarios) > 0 {
		sj, _ := json.Marshal(m.Scenarios)
		keys = append(keys, KeyScenarios)
		values = append(values, string(sj))
	}
	if m.Probe != "" {
		keys = append(keys, KeyProbe)
		values = append(values, m.Probe)
	}
	if len(m.GRPC) > 0 {
		gj, _ := json.Marshal(m.GRPC)
		keys = append(keys, KeyGRPC)
		values = append(values, string(gj))
	}
	return arrow.NewMetadata(keys, values)
}

// metaFrom reads Meta from schema metadata written by any writer; missing
// keys stay zero, malformed ones are reported.
func metaFrom(md arrow.Metadata) (Meta, error) {
	var m Meta
	get := func(k string) string {
		if i := md.FindKey(k); i >= 0 {
			return md.Values()[i]
		}
		return ""
	}
	m.Version = get(KeyVersion)
	m.RunID = get(KeyRunID)
	m.ScheduleHash = get(KeyScheduleHash)
	m.PlanName = get(KeyPlanName)
	m.Probe = get(KeyProbe)
	var err error
	if v := get(KeyStartUnixNs); v != "" {
		if m.StartUnixNs, err = strconv.ParseInt(v, 10, 64); err != nil {
			return m, fmt.Errorf("metadata %s=%q is not an integer", KeyStartUnixNs, v)
		}
	}
	if v := get(KeySeed); v != "" {
		if m.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return m, fmt.Errorf("metadata %s=%q is not an integer", KeySeed, v)
		}
	}
	if v := get(KeyShard); v != "" {
		if m.Shard, err = ParseShard(v); err != nil {
			return m, fmt.Errorf("metadata %s: %v", KeyShard, err)
		}
	}
	if v := get(KeySlots); v != "" {
		if m.Slots, err = strconv.ParseInt(v, 10, 64); err != nil || m.Slots < 0 {
			return m, fmt.Errorf("metadata %s=%q is not a slot count", KeySlots, v)
		}
	}
	if v := get(KeyExpect); v != "" {
		if err := json.Unmarshal([]byte(v), &m.Expect); err != nil {
			return m, fmt.Errorf("metadata %s is not a JSON object of endpoint to statuses: %v", KeyExpect, err)
		}
	}
	if v := get(KeyGRPC); v != "" {
		if err := json.Unmarshal([]byte(v), &m.GRPC); err != nil {
			return m, fmt.Errorf("metadata %s is not a JSON array of endpoint names: %v", KeyGRPC, err)
		}
	}
	if v := get(KeyScenarios); v != "" {
		if err := json.Unmarshal([]byte(v), &m.Scenarios); err != nil {
			return m, fmt.Errorf("metadata %s is not a JSON object of scenario to step endpoints: %v", KeyScenarios, err)
		}
	}
	return m, nil
}

var (
	endpointType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint16, ValueType: arrow.BinaryTypes.String}
	errorType    = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.BinaryTypes.String}
)

// Column ids: a column's index in columnNames, whatever its place in a
// file's schema.
const (
	colSlot = iota
	colEndpoint
	colScheduled
	colSent
	colLatency
	colService
	colStatus
	colError
	colBytesOut
	colBytesIn
	colConnect
	numColumns
)

// columnNames are the columns a results file may have, in the order they
// appear in it.
var columnNames = [numColumns]string{ColSlot, ColEndpoint, ColScheduled, ColSent, ColLatency, ColService,
	ColStatus, ColError, ColBytesOut, ColBytesIn, ColConnect}

// columnTypes are the types tressi's writer gives the columns.
var columnTypes = [numColumns]arrow.DataType{
	arrow.PrimitiveTypes.Uint64, endpointType, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint16, errorType,
	arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Int64,
}

// columnWidths are the byte widths of the columns' values in those types
// (dictionary columns: their indices).
var columnWidths = [numColumns]int{8, 2, 8, 8, 8, 8, 2, 1, 4, 4, 8}

// storedColumns are the columns tressi writes, in schema order. service_ns
// is not among them: it is latency_ns − (sent_ns − scheduled_ns) wherever
// both are known, so storing it spent a fifth of the file on what the
// other three columns already say. Readers derive it (deriveService).
var storedColumns = []int{colSlot, colEndpoint, colScheduled, colSent, colLatency, colStatus, colError,
	colBytesOut, colBytesIn, colConnect}

// serviceColumns are the columns of files written before service_ns was
// derived: every column (tests write them to check such files still read).
var serviceColumns = []int{colSlot, colEndpoint, colScheduled, colSent, colLatency, colService, colStatus,
	colError, colBytesOut, colBytesIn, colConnect}

// deltaNames are the stored names of the columns kept as deltas (the row's
// value minus the previous row's, in file order), by column id. Rows come
// in the order responses completed, so neighbours were due close together
// and belong to nearby slots: their differences are small, and a run at a
// steady rate repeats one difference, which zstd stores in a few bytes a
// batch and decodes as one long match. Stored as they are, each value cost
// a zstd sequence to decode and 1–3 bytes on disk.
var deltaNames = [numColumns]string{colSlot: ColSlotDelta, colScheduled: ColScheduledDelta}

// storedName and storedType are how column id appears in a file that
// stores it as deltas (delta) or as it is.
func storedName(id int, delta bool) string {
	if delta {
		return deltaNames[id]
	}
	return columnNames[id]
}

func storedType(id int, delta bool) arrow.DataType {
	if delta {
		return arrow.PrimitiveTypes.Int64 // a slot's difference may be negative
	}
	return columnTypes[id]
}

// Schema is the results.arrow schema carrying m as metadata.
func Schema(m Meta) *arrow.Schema { return schemaOf(m, storedColumns, true) }

// schemaOf is the schema of the columns ids, slot and scheduled_ns stored
// as deltas when deltas is set (files of older versions: not).
func schemaOf(m Meta, ids []int, deltas bool) *arrow.Schema {
	md := m.metadata()
	fields := make([]arrow.Field, len(ids))
	for i, id := range ids {
		d := deltas && deltaNames[id] != ""
		fields[i] = arrow.Field{Name: storedName(id, d), Type: storedType(id, d)}
	}
	return arrow.NewSchema(fields, &md)
}

// runningSum turns a batch's deltas into values in place, continuing from
// *last (the previous batch's last value, 0 before the first), and leaves
// the batch's last value there.
func runningSum[T uint64 | int64](v []T, last *T) {
	s := *last
	for i, d := range v {
		s += d
		v[i] = s
	}
	*last = s
}

// serviceOf is a row's service time as its other times give it: complete −
// sent, where complete = scheduled + latency; -1 without a response or a
// send.
func serviceOf(scheduled, sent, latency int64) int64 {
	if latency < 0 || sent < 0 {
		return -1
	}
	return latency - (sent - scheduled)
}

// deriveService fills dst with the service times of a file that does not
// store them.
func deriveService(dst, scheduled, sent, latency []int64) {
	for i := range dst {
		dst[i] = serviceOf(scheduled[i], sent[i], latency[i])
	}
}
