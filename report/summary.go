package report

import (
	"fmt"
	"github.com/tressi/tressi/grpc"
	"maps"
	"slices"
	"strconv"

	"github.com/tressi/tressi/results"
)

// Summary is what a report says about one run, or about the shards of one
// run taken together. Its JSON form is a contract (docs/contracts.md, "Report JSON"):
// the keys up to Thresholds are required, the rest are extras.
type Summary struct {
	// WebSocket is the runs' websocket.json, merged over shards; nil
	// without WebSocket sessions.
	WebSocket *results.WebSocketSummary `json:"websocket,omitempty"`
	Requests  int64                     `json:"requests"`
	Sent      int64                     `json:"sent"`
	OK        int64                     `json:"ok"`
	Errors    int64                     `json:"errors"`
	ErrorRate float64                   `json:"error_rate"`
	// NotSent and Interrupted are the rows a stop cut off (never sent; in
	// flight at the stop): no verdict on the server, so neither counts
	// in Errors nor in ErrorRate, which is over the requests judged
	// (Requests − NotSent − Interrupted = OK + Errors).
	NotSent       int64       `json:"not_sent"`
	Interrupted   int64       `json:"interrupted"`
	DurationS     float64     `json:"duration_s"`
	ThroughputRPS float64     `json:"throughput_rps"`
	Latency       Percentiles `json:"latency_ms"`
	Service       Percentiles `json:"service_ms"`
	// SendLag is sent − scheduled over the requests sent: how late the
	// generator sent them (see banner.go's behind-schedule note).
	SendLag    Percentiles       `json:"send_lag_ms"`
	Status     map[string]int64  `json:"status"`
	ErrorKinds map[string]int64  `json:"error_kinds"`
	Endpoints  []EndpointSummary `json:"endpoints"`
	Thresholds []ThresholdResult `json:"thresholds"`
	// Scenarios is left out when the run has none.
	Scenarios []ScenarioSummary `json:"scenarios,omitempty"`

	Run        RunInfo     `json:"run"`
	Completed  int64       `json:"completed"` // rows with a response
	BytesOut   int64       `json:"bytes_out"`
	BytesIn    int64       `json:"bytes_in"`
	LatencyCDF []CDFPoint  `json:"latency_cdf"`
	Series     []Second    `json:"series"`
	Samples    []Sample    `json:"samples"`
	Shards     []ShardInfo `json:"shards"`
	Warnings   []string    `json:"warnings"`
	Precision  Precision   `json:"precision"`
	// UnexpectedStatus counts, by status, the responses whose endpoint does
	// not expect that status (its expect list, or 200–399), and "0" for no
	// response: a 404 an endpoint expects is not in it.
	UnexpectedStatus map[string]int64 `json:"unexpected_status"`
	// GRPCCodes counts the gRPC calls by code name ("OK", "NOT_FOUND"),
	// over the endpoints that are gRPC calls, whose statuses are not in
	// Status; UnexpectedGRPC the calls whose endpoint does not expect
	// their code. Left out without gRPC endpoints.
	GRPCCodes      map[string]int64 `json:"grpc_codes,omitempty"`
	UnexpectedGRPC map[string]int64 `json:"unexpected_grpc,omitempty"`
	// Checks counts each check block's runs and failures per endpoint
	// (meta.json's "checks"); absent without checks or meta.json.
	Checks []results.CheckTally `json:"checks,omitempty"`
	// Partial is set when the inputs hold less than the run: slots of the
	// schedule without a row (MissingSlots), or a run directory whose
	// meta.json says the run never finished. The figures then cover only
	// what was recorded; Warnings say what is missing.
	Partial      bool  `json:"partial"`
	MissingSlots int64 `json:"missing_slots"`
	// Connect is where connection opening went (connect_ns); nil when the
	// results have no such column or no request opened a connection.
	Connect *ConnectSummary `json:"connect,omitempty"`
	// TLS is meta.json's tls object: handshakes, resumed ones, targets not
	// verified; nil without https targets (or without meta.json).
	TLS *TLSSummary `json:"tls,omitempty"`
	// Protocols is meta.json's protocols object summed over shards: by
	// target, the connections that spoke each protocol ("http/1.1", "h2",
	// "h2c"); nil without one.
	Protocols map[string]map[string]int64 `json:"protocols,omitempty"`
	// GRPCStreams is meta.json's grpc_streams summed over shards: by the
	// step that opens them, the gRPC streams' calls, sent, received and
	// unmatched messages.
	GRPCStreams map[string]map[string]int64 `json:"grpc_streams,omitempty"`
}

// ConnectSummary sums the connect_ns column: how many requests opened a
// connection and how long opening them took (TCP connect plus the TLS
// handshake).
type ConnectSummary struct {
	Opened  int64   `json:"opened"`
	TotalMs float64 `json:"total_ms"`
	MeanMs  float64 `json:"mean_ms"`
	MaxMs   float64 `json:"max_ms"`
}

// TLSSummary is what meta.json says of a run's TLS handshakes.
type TLSSummary struct {
	Handshakes         int64    `json:"handshakes"`
	Resumed            int64    `json:"resumed"`
	InsecureSkipVerify []string `json:"insecure_skip_verify,omitempty"`
}

// RunInfo identifies the run the rows came from.
type RunInfo struct {
	PlanName     string `json:"plan_name"`
	RunID        string `json:"run_id"`
	ScheduleHash string `json:"schedule_hash"`
	StartUnixNs  int64  `json:"start_unix_ns"`
	Version      string `json:"tressi_version"`
	// Environment is meta.json of the run directory, when there is one.
	Environment map[string]any `json:"environment,omitempty"`
}

// EndpointSummary is one endpoint's (or scenario step's) share of the run.
type EndpointSummary struct {
	Name     string           `json:"name"`
	Requests int64            `json:"requests"`
	OK       int64            `json:"ok"`
	Errors   int64            `json:"errors"`
	Latency  Percentiles      `json:"latency_ms"`
	Status   map[string]int64 `json:"status"`
	// GRPC: the endpoint is a gRPC call; Status is then by gRPC code (0
	// is OK), counting the calls that ended with one.
	GRPC bool `json:"grpc,omitempty"`
}

// StatusCount is one row of the status-code distribution, in status order.
type StatusCount struct {
	Status int
	Count  int64
}

// StatusDistribution lists s.Status in ascending status order.
func (s *Summary) StatusDistribution() []StatusCount { return sortedStatus(s.Status) }

func sortedStatus(m map[string]int64) []StatusCount {
	out := make([]StatusCount, 0, len(m))
	for k, n := range m {
		st, _ := strconv.Atoi(k)
		out = append(out, StatusCount{st, n})
	}
	slices.SortFunc(out, func(a, b StatusCount) int { return a.Status - b.Status })
	return out
}

// denseStatuses covers every real HTTP status; rarer values go to a map.
const denseStatuses = 1024

// endpointTally accumulates one endpoint's rows.
type endpointTally struct {
	name      string
	expect    []int
	expected  [denseStatuses]bool // ExpectsStatus, precomputed per status
	status    [denseStatuses]int64
	oddStatus map[uint16]int64
	requests  int64
	ok        int64
	unjudged  int64 // not_sent and interrupted rows: cut off by a stop
	latency   *latencyHistogram
	grpc      bool // a gRPC call: statuses are gRPC codes
}

func newEndpointTally(name string, expect []int) *endpointTally {
	e := &endpointTally{name: name, expect: expect, latency: newLatencyHistogram()}
	for st := range e.expected {
		e.expected[st] = results.ExpectsStatus(expect, st)
	}
	return e
}

func (e *endpointTally) expects(st uint16) bool {
	if int(st) < denseStatuses {
		return e.expected[st]
	}
	return results.ExpectsStatus(e.expect, int(st))
}

func (e *endpointTally) countStatus(st uint16) {
	if int(st) < denseStatuses {
		e.status[st]++
		return
	}
	if e.oddStatus == nil {
		e.oddStatus = map[uint16]int64{}
	}
	e.oddStatus[st]++
}

func (e *endpointTally) statusMap() map[string]int64 {
	m := map[string]int64{}
	for st, n := range e.status {
		if n > 0 {
			m[strconv.Itoa(st)] = n
		}
	}
	for st, n := range e.oddStatus {
		m[strconv.Itoa(int(st))] = n
	}
	return m
}

// tally is the single streaming pass: every row updates counters and
// histograms whose size does not depend on the number of rows.
type tally struct {
	endpoints  []*endpointTally
	byName     map[string]*endpointTally
	errorKinds map[string]int64
	latency    *latencyHistogram
	service    *latencyHistogram
	sendLag    *latencyHistogram
	series     series
	sessions   *sessionTracker

	sent, completed   int64
	bytesOut, bytesIn int64
	// opened, connectNs, connectMax: rows with connect_ns > 0, their sum
	// and largest value.
	opened, connectNs, connectMax int64
	firstDue, lastEnd             int64
	rows                          int64

	// Per-batch translation of the batch's dictionary indices.
	epOf  []*endpointTally
	scnOf []int32 // scenario of each endpoint index, -1 for none
	errOf []string
	errN  []int64
	// cutOff marks the batch's error indices that a stop caused
	// (not_sent, interrupted): rows that are neither ok nor errors.
	cutOff []bool
	// skipOf and failed mark the error indices of rows that stand for no
	// request (no_item, skipped) and of any error at all.
	skipOf, failed []bool
}

func newTally() *tally {
	return &tally{
		byName:     map[string]*endpointTally{},
		errorKinds: map[string]int64{},
		latency:    newLatencyHistogram(),
		service:    newLatencyHistogram(),
		sendLag:    newLatencyHistogram(),
		sessions:   newSessionTracker(),
		firstDue:   1<<63 - 1,
		lastEnd:    -1 << 63,
	}
}

// endpoint returns the tally of name, creating it with expect on first sight.
func (t *tally) endpoint(name string, expect map[string][]int) *endpointTally {
	e, ok := t.byName[name]
	if !ok {
		e = newEndpointTally(name, expect[name])
		t.byName[name] = e
		t.endpoints = append(t.endpoints, e)
	}
	return e
}

// notRequest says whether an error word is one of rows that stand for no
// request (results.ErrorKind.NotRequest): counted, but not as requests or
// errors.
func notRequest(word string) bool {
	k, ok := results.ParseErrorKind(word)
	return ok && k.NotRequest()
}

// add folds one batch in, with its file's Meta (the statuses each
// endpoint expects, which endpoints are gRPC calls).
func (t *tally) add(b *results.Batch, meta results.Meta) error {
	t.epOf, t.scnOf = t.epOf[:0], t.scnOf[:0]
	for _, name := range b.EndpointNames {
		ep := t.endpoint(name, meta.Expect)
		ep.grpc = ep.grpc || slices.Contains(meta.GRPC, name)
		t.epOf = append(t.epOf, ep)
		t.scnOf = append(t.scnOf, t.sessions.scenarioOf(name))
	}
	t.errOf = append(t.errOf[:0], b.ErrorNames...)
	t.errN = grow(t.errN, len(b.ErrorNames))
	t.cutOff = t.cutOff[:0]
	for _, name := range b.ErrorNames {
		t.cutOff = append(t.cutOff, name == results.NotSent.String() || name == results.Interrupted.String())
	}
	epOf, errN, cutOff := t.epOf, t.errN, t.cutOff
	t.skipOf, t.failed = t.skipOf[:0], t.failed[:0]
	for _, name := range b.ErrorNames {
		t.skipOf = append(t.skipOf, notRequest(name))
		t.failed = append(t.failed, name != "")
	}
	skipOf, failedKind := t.skipOf, t.failed
	// The columns as local slices of one length, and the sums as locals:
	// the loop then keeps them in registers and drops most bounds checks.
	n := b.Len
	endpoint, errIdx, status := b.Endpoint[:n], b.Error[:n], b.Status[:n]
	scheduled, sentAt, latency, service := b.Scheduled[:n], b.Sent[:n], b.Latency[:n], b.Service
	bytesOut, bytesIn, connect := b.BytesOut[:n], b.BytesIn[:n], b.Connect
	sent, completed, bOut, bIn := t.sent, t.completed, t.bytesOut, t.bytesIn
	firstDue, lastEnd := t.firstDue, t.lastEnd
	for i := range n {
		ei, xi := endpoint[i], errIdx[i] // in range: results.Reader checks every index
		ep := epOf[ei]
		due := scheduled[i]
		if skipOf[xi] {
			// A for_each iteration that did not exist, or a send skip_if
			// passed over: a row of its own kind, neither a request nor an
			// error.
			errN[xi]++
			if sc := t.scnOf[ei]; sc >= 0 {
				if err := t.sessions.add(sc, b.Slot[i], due, due, true); err != nil {
					return fmt.Errorf("row %d: %w", b.Row+int64(i), err)
				}
			}
			continue
		}
		st := status[i]
		ep.requests++
		if !ep.grpc || st != 0 || !failedKind[xi] {
			// A gRPC call that failed without a code (not sent, cut off,
			// no connection) is no OK: its error says what happened.
			ep.countStatus(st)
		}
		errN[xi]++
		if cutOff[xi] {
			ep.unjudged++
		}
		if s := sentAt[i]; s >= 0 {
			sent++
			t.sendLag.Record(max(s-due, 0))
		}
		firstDue = min(firstDue, due)
		bOut += int64(bytesOut[i])
		bIn += int64(bytesIn[i])
		if connect != nil && connect[i] > 0 {
			t.opened++
			t.connectNs += connect[i]
			t.connectMax = max(t.connectMax, connect[i])
		}
		lat := latency[i]
		if lat < 0 {
			if !cutOff[xi] { // a stop's rows are no error of their second
				t.series.at(due).errors++
			}
			if sc := t.scnOf[ei]; sc >= 0 {
				// No response: the session's last known instant is the send, or the due instant.
				if err := t.sessions.add(sc, b.Slot[i], due, max(due, sentAt[i]), false); err != nil {
					return fmt.Errorf("row %d: %w", b.Row+int64(i), err)
				}
			}
			continue
		}
		end := due + lat
		lastEnd = max(lastEnd, end)
		completed++
		ep.latency.Record(lat) // t.latency is merged from these in summary
		if svc := serviceAt(service, i, due, sentAt[i], lat); svc >= 0 {
			t.service.Record(svc)
		}
		ok := !failedKind[xi] && ep.expects(st)
		if ok {
			ep.ok++
		}
		sec := t.series.at(end)
		sec.completed++
		sec.latency.record(lat)
		if !ok {
			sec.errors++
		}
		if sc := t.scnOf[ei]; sc >= 0 {
			if err := t.sessions.add(sc, b.Slot[i], due, end, ok); err != nil {
				return fmt.Errorf("row %d: %w", b.Row+int64(i), err)
			}
		}
	}
	t.sent, t.completed, t.bytesOut, t.bytesIn = sent, completed, bOut, bIn
	t.firstDue, t.lastEnd = firstDue, lastEnd
	for xi, n := range errN {
		if n > 0 && t.errOf[xi] != "" {
			t.errorKinds[t.errOf[xi]] += n
		}
	}
	t.rows += int64(b.Len)
	return nil
}

// serviceAt is row i's service time (lat >= 0): the file's, or derived
// from the other times as results does (complete − sent).
func serviceAt(service []int64, i int, due, sent, lat int64) int64 {
	if service != nil {
		return service[i]
	}
	if sent < 0 {
		return -1
	}
	return lat - (sent - due)
}

func grow(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// summary turns the counters into the report's numbers.
func (t *tally) summary() Summary {
	t.latency = newLatencyHistogram()
	for _, e := range t.endpoints {
		t.latency.Merge(e.latency)
	}
	s := Summary{
		Precision:        reportPrecision,
		Sent:             t.sent,
		Completed:        t.completed,
		BytesOut:         t.bytesOut,
		BytesIn:          t.bytesIn,
		Latency:          t.latency.Percentiles(),
		Service:          t.service.Percentiles(),
		SendLag:          t.sendLag.Percentiles(),
		LatencyCDF:       cdf(t.latency),
		Status:           map[string]int64{},
		UnexpectedStatus: map[string]int64{},
		ErrorKinds:       maps.Clone(t.errorKinds),
		Series:           t.series.seconds(),
		Endpoints:        []EndpointSummary{},
		Scenarios:        t.sessions.summaries(),
		Connect:          t.connectSummary(),
	}
	slices.SortFunc(t.endpoints, func(a, b *endpointTally) int {
		if a.name < b.name {
			return -1
		}
		if a.name > b.name {
			return 1
		}
		return 0
	})
	for _, e := range t.endpoints {
		es := EndpointSummary{
			Name: e.name, Requests: e.requests, OK: e.ok,
			Errors:  results.Counts{Requests: e.requests, OK: e.ok, CutOff: e.unjudged}.Errors(),
			Latency: e.latency.Percentiles(), Status: e.statusMap(), GRPC: e.grpc,
		}
		if e.grpc {
			s.addGRPC(es, e)
		}
		for k, n := range es.Status {
			if e.grpc {
				break
			}
			s.Status[k] += n
			if st, _ := strconv.Atoi(k); st == 0 || !e.expects(uint16(st)) {
				s.UnexpectedStatus[k] += n
			}
		}
		s.Requests += es.Requests
		s.OK += es.OK
		s.Errors += es.Errors
		s.Endpoints = append(s.Endpoints, es)
	}
	s.NotSent = t.errorKinds[results.NotSent.String()]
	s.Interrupted = t.errorKinds[results.Interrupted.String()]
	s.ErrorRate = s.Counts().ErrorRate()
	if t.completed > 0 && t.lastEnd > t.firstDue {
		s.DurationS = float64(t.lastEnd-t.firstDue) / 1e9
		s.ThroughputRPS = float64(t.completed) / s.DurationS
	}
	return s
}

func (t *tally) connectSummary() *ConnectSummary {
	if t.opened == 0 {
		return nil
	}
	return &ConnectSummary{Opened: t.opened, TotalMs: float64(t.connectNs) / 1e6,
		MeanMs: float64(t.connectNs) / 1e6 / float64(t.opened), MaxMs: float64(t.connectMax) / 1e6}
}

// tlsSummary reads meta.json's tls object from the run's environment.
func tlsSummary(env map[string]any) *TLSSummary {
	m, ok := env["tls"].(map[string]any)
	if !ok {
		return nil
	}
	num := func(k string) int64 {
		f, _ := m[k].(float64)
		return int64(f)
	}
	s := &TLSSummary{Handshakes: num("handshakes"), Resumed: num("resumed")}
	if list, ok := m["insecure_skip_verify"].([]any); ok {
		for _, v := range list {
			if name, ok := v.(string); ok {
				s.InsecureSkipVerify = append(s.InsecureSkipVerify, name)
			}
		}
	}
	return s
}

// Counts is the summary's rows by outcome, as results defines the figures
// for every reader of a run (report, diff, thresholds, the live view).
func (s *Summary) Counts() results.Counts {
	return results.Counts{Requests: s.Requests, OK: s.OK, CutOff: s.NotSent + s.Interrupted}
}

// addGRPC counts a gRPC endpoint's calls by code name.
func (s *Summary) addGRPC(es EndpointSummary, e *endpointTally) {
	if s.GRPCCodes == nil {
		s.GRPCCodes, s.UnexpectedGRPC = map[string]int64{}, map[string]int64{}
	}
	for k, n := range es.Status {
		code, _ := strconv.Atoi(k)
		name := grpc.Code(code).String()
		s.GRPCCodes[name] += n
		if !e.expects(uint16(code)) {
			s.UnexpectedGRPC[name] += n
		}
	}
}
