package report

import (
	"cmp"
	"fmt"
	"github.com/tressi/tressi/grpc"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tressi/tressi/results"
)

// section is one titled table of a report. Text, Markdown and HTML lay out
// the same sections(), so the three forms never disagree about content.
// XLSX writes its own sheets (xlsx.go): the contract names them, and their
// cells are numbers rather than formatted text.
type section struct {
	Title  string
	Header []string
	Rows   [][]string
	Notes  []string // lines under the table
	// Align has one letter per column, 'l' or 'r'; empty means the first
	// column left and the others (numbers) right.
	Align string
}

// leftAligned says whether column c of sec is text.
func (sec *section) leftAligned(c int) bool {
	if sec.Align == "" {
		return c == 0
	}
	return c < len(sec.Align) && sec.Align[c] == 'l'
}

// sections lays the report out for text-like renderers.
func (r *Report) sections() []section {
	s := &r.Summary
	var out []section
	if b := r.banner(); b != nil {
		out = append(out, *b)
	}
	if s.AllRequestsFailed() {
		out = append(out, allFailedSection(s))
	}
	out = append(out, r.overview(), latencySection(s))
	if r.Baseline != nil {
		out = append(out, r.comparison())
	}
	if len(s.Scenarios) > 0 {
		out = append(out, scenarioSection(s))
	}
	out = append(out, endpointSection(s))
	if len(s.Status) > 0 || len(s.GRPCCodes) == 0 {
		out = append(out, statusSection(s))
	}
	if len(s.GRPCCodes) > 0 {
		out = append(out, grpcSection(s))
	}
	if len(s.Checks) > 0 {
		out = append(out, checksSection(s))
	}
	if s.WebSocket != nil {
		out = append(out, webSocketSection(s.WebSocket))
	}
	if sec, ok := errorSection(s); ok {
		out = append(out, sec)
	}
	if sec, ok := notErrorSection(s); ok {
		out = append(out, sec)
	}
	if len(s.Thresholds) > 0 {
		out = append(out, thresholdSection(s))
	}
	if len(s.Samples) > 0 {
		out = append(out, sampleSection(s))
	}
	if len(s.Warnings) > 0 {
		out = append(out, section{Title: "Warnings", Notes: s.Warnings})
	}
	return out
}

func (r *Report) overview() section {
	s := &r.Summary
	sec := section{Title: "Summary", Header: []string{"", ""}, Align: "ll"}
	add := func(k, v string) { sec.Rows = append(sec.Rows, []string{k, v}) }
	if s.Run.PlanName != "" {
		add("plan", s.Run.PlanName)
	}
	if s.Run.RunID != "" {
		add("run", s.Run.RunID)
	}
	if s.Run.StartUnixNs > 0 {
		add("started", time.Unix(0, s.Run.StartUnixNs).UTC().Format(time.RFC3339))
	}
	if s.Run.ScheduleHash != "" {
		add("schedule hash", short(s.Run.ScheduleHash))
	}
	if len(s.Shards) > 1 {
		add("shards", strconv.Itoa(len(s.Shards)))
	}
	add("requests", count(s.Requests))
	add("sent", count(s.Sent))
	add("ok", count(s.OK))
	add("errors", fmt.Sprintf("%s (%s of the %s requests judged)", count(s.Errors), percent(s.ErrorRate), count(s.Counts().Judged())))
	if s.NotSent > 0 || s.Interrupted > 0 {
		add("not sent", count(s.NotSent)+" (the run stopped before they were due; not errors)")
		add("interrupted", count(s.Interrupted)+" (in flight when the run stopped; not errors)")
	}
	add("duration", fmt.Sprintf("%.2f s", s.DurationS))
	add("throughput", fmt.Sprintf("%.1f req/s", s.ThroughputRPS))
	add("bytes out / in", fmt.Sprintf("%s / %s", byteSize(s.BytesOut), byteSize(s.BytesIn)))
	if c := s.Connect; c != nil {
		add("connections opened", fmt.Sprintf("%s, %.2f ms each on average (max %.2f ms), %.1f ms in all (connect_ns)",
			count(c.Opened), c.MeanMs, c.MaxMs, c.TotalMs))
	}
	if len(s.Protocols) > 0 {
		add("connections by protocol", protocolLine(s.Protocols))
	}
	if len(s.GRPCStreams) > 0 {
		add("gRPC streams", grpcStreamsLine(s.GRPCStreams))
	}
	if t := s.TLS; t != nil {
		add("TLS handshakes", fmt.Sprintf("%s, %s of them resumed", count(t.Handshakes), count(t.Resumed)))
	}
	return sec
}

func latencySection(s *Summary) section {
	sec := section{Title: "Latency (ms)", Header: []string{"", "min", "mean", "p50", "p90", "p95", "p99", "p99.9", "max"}}
	for _, l := range []struct {
		name string
		p    Percentiles
	}{{"corrected", s.Latency}, {"service", s.Service}} {
		row := []string{l.name}
		for _, f := range percentileFields(l.p) {
			row = append(row, sampled(l.p, f.Value))
		}
		sec.Rows = append(sec.Rows, row)
	}
	sec.Notes = []string{"corrected latency runs from each request's due instant (no coordinated omission); service latency from when it was sent",
		precisionNote}
	return sec
}

func (r *Report) comparison() section {
	cur, base, d := &r.Summary, r.Baseline, r.Delta
	sec := section{Title: "Compared with baseline", Header: []string{"", "this run", "baseline", "change"}}
	sec.Rows = append(sec.Rows,
		[]string{"throughput (req/s)", fmt.Sprintf("%.1f", cur.ThroughputRPS), fmt.Sprintf("%.1f", base.ThroughputRPS), changeText(d.ThroughputRPS, "%+.1f")},
		[]string{"error rate", percent(cur.ErrorRate), percent(base.ErrorRate), changeText(Change{Abs: d.ErrorRate.Abs * 100, Rel: d.ErrorRate.Rel}, "%+.2f pp")},
	)
	bf := percentileFields(base.Latency)
	for i, f := range percentileFields(cur.Latency) {
		sec.Rows = append(sec.Rows, []string{"latency " + f.Name + " (ms)", sampled(cur.Latency, f.Value), sampled(base.Latency, bf[i].Value), changeText(d.Latency[f.Name], "%+.3f")})
	}
	for _, sc := range cur.Scenarios {
		changes, ok := d.Scenarios[sc.Name]
		if !ok {
			continue
		}
		bi := slices.IndexFunc(base.Scenarios, func(b ScenarioSummary) bool { return b.Name == sc.Name })
		cf, bf := percentileFields(sc.Session), percentileFields(base.Scenarios[bi].Session)
		for i, f := range cf {
			if c, ok := changes[f.Name]; ok {
				sec.Rows = append(sec.Rows, []string{sc.Name + " session " + f.Name + " (ms)", millis(f.Value), millis(bf[i].Value), changeText(c, "%+.3f")})
			}
		}
	}
	return sec
}

// endpointSection lists the endpoints; when the run has scenarios, a first
// column names each step's scenario (on its first step only, so the steps
// read as a group) and the steps follow the plain endpoints in step order.
func endpointSection(s *Summary) section {
	header := []string{"endpoint", "requests", "ok", "errors", "p50 ms", "p90 ms", "p99 ms", "max ms", "status"}
	sec := section{Title: "Endpoints", Header: header, Align: "lrrrrrrrl"}
	if len(s.Scenarios) > 0 {
		sec.Header = append([]string{"scenario"}, header...)
		sec.Align = "l" + sec.Align
	}
	var idle []string
	for _, g := range groupEndpoints(s) {
		for _, e := range g.endpoints {
			if e.Requests == 0 {
				idle = append(idle, e.Name)
			}
		}
		g.endpoints = slices.DeleteFunc(g.endpoints, func(e EndpointSummary) bool { return e.Requests == 0 })
		for i, e := range g.endpoints {
			row := endpointRow(e)
			if len(s.Scenarios) > 0 {
				scenario := ""
				if i == 0 {
					scenario = g.scenario
				}
				if g.scenario != "" {
					row[0] = strings.TrimPrefix(e.Name, g.scenario+".")
				}
				row = append([]string{scenario}, row...)
			}
			sec.Rows = append(sec.Rows, row)
		}
	}
	if len(idle) > 0 {
		// A weight-0 scenario, or one never picked, would be a row of
		// dashes per step.
		sec.Notes = append(sec.Notes, fmt.Sprintf("left out, with no request in this run (weight 0, or never selected): %s", strings.Join(idle, ", ")))
	}
	return sec
}

func endpointRow(e EndpointSummary) []string {
	var st []string
	for _, c := range sortedStatus(e.Status) {
		if e.GRPC {
			st = append(st, fmt.Sprintf("%s×%d", grpc.Code(c.Status), c.Count))
			continue
		}
		st = append(st, fmt.Sprintf("%d×%d", c.Status, c.Count))
	}
	l := e.Latency
	return []string{e.Name, count(e.Requests), count(e.OK), count(e.Errors),
		sampled(l, l.P50), sampled(l, l.P90), sampled(l, l.P99), sampled(l, l.Max), strings.Join(st, " ")}
}

// endpointGroup is the endpoints of one scenario, or ("") those of none.
type endpointGroup struct {
	scenario  string
	endpoints []EndpointSummary
}

// groupEndpoints puts the plain endpoints first (by name), then each
// scenario's steps in step order; a step without rows is left out.
func groupEndpoints(s *Summary) []endpointGroup {
	byName := map[string]EndpointSummary{}
	for _, e := range s.Endpoints {
		byName[e.Name] = e
	}
	inScenario := map[string]bool{}
	var groups []endpointGroup
	for _, sc := range s.Scenarios {
		g := endpointGroup{scenario: sc.Name}
		for _, name := range sc.Steps {
			if e, ok := byName[name]; ok && !inScenario[name] {
				g.endpoints = append(g.endpoints, e)
				inScenario[name] = true
			}
		}
		if len(g.endpoints) > 0 {
			groups = append(groups, g)
		}
	}
	plain := endpointGroup{}
	for _, e := range s.Endpoints {
		if !inScenario[e.Name] {
			plain.endpoints = append(plain.endpoints, e)
		}
	}
	if len(plain.endpoints) > 0 {
		groups = append([]endpointGroup{plain}, groups...)
	}
	return groups
}

// scenarioSection reports each scenario's sessions; their steps are in the
// Endpoints table.
func scenarioSection(s *Summary) section {
	sec := section{Title: "Scenarios", Header: []string{"scenario", "sessions", "completed", "failed", "req/session",
		"min ms", "mean ms", "p50 ms", "p90 ms", "p95 ms", "p99 ms", "max ms"}}
	for _, sc := range s.Scenarios {
		p := sc.Session
		sec.Rows = append(sec.Rows, []string{sc.Name, count(sc.Sessions), count(sc.Completed), count(sc.Failed),
			fmt.Sprintf("%.2f", sc.RequestsPerSession),
			sampled(p, p.Min), sampled(p, p.Mean), sampled(p, p.P50), sampled(p, p.P90), sampled(p, p.P95), sampled(p, p.P99), sampled(p, p.Max)})
	}
	sec.Notes = []string{"a session is the rows of one slot; it completed when every request was ok",
		"session durations run from the first due instant to the last response, failed sessions included"}
	return sec
}

func statusSection(s *Summary) section {
	sec := section{Title: "Status codes", Header: []string{"status", "count", "share"}, Align: "lrr"}
	for _, c := range s.StatusDistribution() {
		name := strconv.Itoa(c.Status)
		if c.Status == 0 {
			name = "0 (no response)"
		}
		sec.Rows = append(sec.Rows, []string{name, count(c.Count), percent(share(c.Count, s.Requests))})
	}
	return sec
}

// errorSection lists the error kinds, each as a share of the requests
// judged (ok or an error), as the summary's error rate is.
func errorSection(s *Summary) (sec section, ok bool) {
	sec = section{Title: "Errors", Header: []string{"error", "count", "share"}}
	for _, k := range sortedKeys(s.ErrorKinds) {
		if _, not := notErrors[k]; not {
			continue
		}
		sec.Rows = append(sec.Rows, []string{k, count(s.ErrorKinds[k]), percent(share(s.ErrorKinds[k], s.OK+s.Errors))})
	}
	return sec, len(sec.Rows) > 0
}

// notErrors are the row kinds that are neither answers nor errors, and
// what each means to the reader of a report.
var notErrors = map[string]string{
	"not_sent":    "due after the run stopped, never sent",
	"interrupted": "in flight when the run stopped",
	"no_item":     "for_each iterations past the captured array: no request",
	"skipped":     "sends skip_if matched, or left by an exit_if_failed: no request",
}

// notErrorSection lists the rows of those kinds: counted apart, so they
// never read as errors or as shares of the requests.
func notErrorSection(s *Summary) (sec section, ok bool) {
	sec = section{Title: "Rows that are not errors", Header: []string{"kind", "count", "meaning"}, Align: "lrl"}
	for _, k := range sortedKeys(s.ErrorKinds) {
		if meaning, not := notErrors[k]; not {
			sec.Rows = append(sec.Rows, []string{k, count(s.ErrorKinds[k]), meaning})
		}
	}
	return sec, len(sec.Rows) > 0
}

func thresholdSection(s *Summary) section {
	sec := section{Title: "Thresholds", Header: []string{"threshold", "result", "actual", "limit"}, Align: "llrr"}
	for _, t := range s.Thresholds {
		res := "ok"
		if !t.OK {
			res = "FAILED"
		}
		actual, limit := fmt.Sprintf("%g", t.Actual), fmt.Sprintf("%g", t.Limit)
		switch {
		case t.Unit == "ms" && t.Detail != "":
			actual, limit = t.Detail, millis(t.Limit)+" ms"
		case t.Unit == "ms":
			actual, limit = millis(t.Actual)+" ms", millis(t.Limit)+" ms"
		case t.Name == "status_codes":
			actual, limit = t.Detail, "none"
			if t.Detail == "" {
				actual = "none"
			}
		case t.Name == AllFailedName:
			actual, limit = "0 ok of "+count(int64(t.Actual)), "at least 1 ok"
		case t.Name == "error_rate":
			actual, limit = percent(t.Actual), percent(t.Limit)
		case t.Name == "early_exit":
			// What stopped the run, in place of figures it has none of.
			actual, limit = t.Detail, "run to the end"
		}
		sec.Rows = append(sec.Rows, []string{t.Name, res, actual, limit})
	}
	return sec
}

func sampleSection(s *Summary) section {
	sec := section{Title: "Sampled responses", Header: []string{"endpoint", "status", "error", "bytes", "body"}, Align: "lrlrl"}
	for _, x := range s.Samples {
		body := oneLine(x.Body, 60)
		if x.Detail != "" && x.Body == "" {
			// A failed request has no body: say why it failed instead.
			body = oneLine(x.Detail, 160)
		}
		sec.Rows = append(sec.Rows, []string{x.Endpoint, strconv.Itoa(x.Status), x.Error, count(x.BodySize), body})
	}
	return sec
}

func changeText(c Change, absFormat string) string {
	t := fmt.Sprintf(absFormat, c.Abs)
	if c.Rel != nil {
		t += fmt.Sprintf(" (%+.1f%%)", *c.Rel*100)
	}
	return t
}

// count formats an integer with thin grouping, as terminals show it.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// noSample stands for a statistic of a distribution with no value in it: a
// 0 there would read as a fast response.
const noSample = "–"

// sampled shows v, a statistic of p, or noSample when p is empty.
func sampled(p Percentiles, v float64) string {
	if p.Count == 0 {
		return noSample
	}
	return millis(v)
}

// millis shows a latency with about three significant digits.
func millis(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

func percent(f float64) string { return fmt.Sprintf("%.2f%%", f*100) }

func share(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func short(hash string) string {
	if len(hash) > 16 {
		return hash[:16] + "…"
	}
	return hash
}

// oneLine squeezes a body into one table cell of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Largest first: the error that matters most leads.
	sortByCount(keys, m)
	return keys
}

func sortByCount(keys []string, m map[string]int64) {
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return cmp.Compare(m[b], m[a])
		}
		return strings.Compare(a, b)
	})
}

// webSocketSection is what websocket.json adds: sessions, frames nobody
// awaited, fan-out deliveries and connections. Round trips per step are the
// endpoint table's rows.
func webSocketSection(w *results.WebSocketSummary) section {
	sec := section{Title: "WebSocket", Header: []string{"", "count", "p50 ms", "p90 ms", "p99 ms", "max ms"}, Align: "lrrrrr"}
	pct := func(name string, n int64, p results.WSPercentiles) {
		sec.Rows = append(sec.Rows, []string{name, count(n), millis(ms(p.P50)), millis(ms(p.P90)), millis(ms(p.P99)), millis(ms(p.Max))})
	}
	plain := func(name string, n int64) {
		sec.Rows = append(sec.Rows, []string{name, count(n), "", "", "", ""})
	}
	plain("sessions started", w.Sessions.Started)
	pct("sessions connected (connect time)", w.Sessions.Connected, w.Connect)
	plain("sessions completed", w.Sessions.Completed)
	plain("sessions failed", w.Sessions.Failed)
	pct("session duration", w.SessionDuration.Count, w.SessionDuration)
	plain("messages sent", w.Messages.Sent)
	plain("messages received", w.Messages.Received)
	plain("messages unmatched", w.Messages.Unmatched)
	for _, k := range sortedKeys(w.Messages.UnmatchedByStep) {
		plain("  unmatched after "+k, w.Messages.UnmatchedByStep[k])
	}
	if f := w.Fanout; f.Marked > 0 {
		plain("marked messages sent", f.Marked)
		pct("deliveries (latency from the send)", f.Delivered, f.DeliveryLatencyNs)
		plain("marked messages received by another session", f.Received)
		plain("marked messages nobody received", f.Unreceived)
		sec.Notes = append(sec.Notes, fmt.Sprintf("%.2f deliveries per marked message (at most %d)", f.PerMessage, f.MaxPerMessage))
	}
	if n := len(w.OpenConnections); n > 0 {
		peak := int64(0)
		for _, v := range w.OpenConnections {
			peak = max(peak, v)
		}
		sec.Notes = append(sec.Notes, fmt.Sprintf("open connections: peak %s over %d s", count(peak), n))
	}
	return sec
}

// grpcSection counts the gRPC calls by code, in code order.
func grpcSection(s *Summary) section {
	sec := section{Title: "gRPC codes", Header: []string{"code", "count", "share", "unexpected"}, Align: "lrrr"}
	var calls int64
	for _, n := range s.GRPCCodes {
		calls += n
	}
	names := make([]string, 0, len(s.GRPCCodes))
	for name := range s.GRPCCodes {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return codeOrder(a) - codeOrder(b) })
	for _, name := range names {
		n := s.GRPCCodes[name]
		label := name
		if c, ok := grpc.ParseCode(name); ok {
			label = fmt.Sprintf("%d %s", c, name)
		}
		sec.Rows = append(sec.Rows, []string{label, count(n), percent(share(n, calls)), count(s.UnexpectedGRPC[name])})
	}
	sec.Notes = []string{"the calls of gRPC endpoints that ended with a code; those that failed without one (not sent, no connection) are under Errors"}
	return sec
}

// codeOrder sorts code names by number; names of codes beyond gRPC's
// ("CODE(20)") after them.
func codeOrder(name string) int {
	if c, ok := grpc.ParseCode(name); ok {
		return int(c)
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "CODE("), ")"))
	return n + 1000
}
