package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
	"github.com/xuri/excelize/v2"
)

// scenarioTruth is one scenario's sessions recomputed from synth's rows by
// collecting each slot's rows and sorting the durations.
type scenarioTruth struct {
	sessions, completed, requests int64
	durations                     []int64
}

func computeScenarioTruth(s synth.Spec) map[string]*scenarioTruth {
	scenarioOf := map[string]string{}
	for name, steps := range synth.Scenarios {
		for _, ep := range steps {
			scenarioOf[ep] = name
		}
	}
	out := map[string]*scenarioTruth{}
	for k := uint64(0); k < uint64(s.Rows); k++ {
		if !s.Owns(k) {
			continue
		}
		rows := s.SlotRows(k)
		name, ok := scenarioOf[s.EndpointNames()[rows[0].Endpoint]]
		if !ok {
			continue
		}
		start, end, allOK := rows[0].Scheduled, rows[0].Scheduled, true
		for _, r := range rows {
			start = min(start, r.Scheduled)
			last := max(r.Scheduled, r.Sent)
			if r.Latency >= 0 {
				last = r.Scheduled + r.Latency
			}
			end = max(end, last)
			allOK = allOK && r.Latency >= 0 && r.Error == results.None && results.ExpectsStatus(nil, int(r.Status))
		}
		tr := out[name]
		if tr == nil {
			tr = &scenarioTruth{}
			out[name] = tr
		}
		tr.sessions++
		tr.requests += int64(len(rows))
		if allOK {
			tr.completed++
		}
		tr.durations = append(tr.durations, end-start)
	}
	for _, tr := range out {
		slices.Sort(tr.durations)
	}
	return out
}

func checkScenarios(t *testing.T, got []ScenarioSummary, want map[string]*scenarioTruth) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d scenarios, want %d", len(got), len(want))
	}
	for _, sc := range got {
		tr := want[sc.Name]
		if tr == nil {
			t.Fatalf("unexpected scenario %q", sc.Name)
		}
		if sc.Sessions != tr.sessions || sc.Completed != tr.completed || sc.Failed != tr.sessions-tr.completed {
			t.Errorf("%s sessions/completed/failed = %d/%d/%d, want %d/%d/%d", sc.Name, sc.Sessions, sc.Completed, sc.Failed,
				tr.sessions, tr.completed, tr.sessions-tr.completed)
		}
		if want := float64(tr.requests) / float64(tr.sessions); sc.RequestsPerSession != want {
			t.Errorf("%s requests_per_session = %v, want %v", sc.Name, sc.RequestsPerSession, want)
		}
		if !slices.Equal(sc.Steps, synth.Scenarios[sc.Name]) {
			t.Errorf("%s steps = %v, want %v", sc.Name, sc.Steps, synth.Scenarios[sc.Name])
		}
		checkPercentiles(t, sc.Name+" session", sc.Session, tr.durations)
	}
}

func TestScenarioSessionsMatchTruth(t *testing.T) {
	// Small batches and interleaved writing split many sessions across batches.
	spec := synth.Spec{Rows: 120_000, Seed: 11, Rate: 5000, Sessions: true, BatchRows: 1000}
	rep, err := Build([]string{writeRun(t, spec)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := computeScenarioTruth(spec)
	checkScenarios(t, rep.Scenarios, want)
	browse := want["browse"]
	if browse.completed == browse.sessions || browse.completed == 0 {
		t.Fatalf("fixture has %d of %d browse sessions completed; want some of both", browse.completed, browse.sessions)
	}
	if perSession := float64(browse.requests) / float64(browse.sessions); perSession <= 3 {
		t.Fatalf("browse has %.2f requests per session; the fixture should exercise repeats", perSession)
	}
	if rep.ErrorKinds["capture_failed"] == 0 {
		t.Fatal("fixture has no capture_failed rows")
	}
}

func TestSummaryWithSessionsMatchesTruth(t *testing.T) {
	checkAgainstTruth(t, synth.Spec{Rows: 60_000, Seed: 12, Rate: 5000, Sessions: true, BatchRows: 4096})
}

func TestScenarioShardsMergeToTheUnshardedReport(t *testing.T) {
	spec := synth.Spec{Rows: 40_000, Seed: 13, Rate: 4000, Sessions: true, BatchRows: 2000}
	whole, err := Build([]string{writeRun(t, spec)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := range 2 {
		s := spec
		s.Shard = results.Shard{Index: i, Count: 2}
		dirs = append(dirs, writeRun(t, s))
	}
	merged, err := Build(dirs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Scenarios) != 2 {
		t.Fatalf("scenarios = %+v, want browse and buy", merged.Scenarios)
	}
	if got, want := comparable(t, merged), comparable(t, whole); got != want {
		t.Errorf("merged shards differ from the unsharded run:\n got %.600s\nwant %.600s", got, want)
	}
	checkScenarios(t, merged.Scenarios, computeScenarioTruth(spec))
}

// writeResults writes rows of endpoints to a results file with m.
func writeResults(t *testing.T, m results.Meta, endpoints []string, batches ...[]results.Row) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.arrow")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := results.NewWriter(f, m, endpoints)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSessionsByHand pins the session rules on rows small enough to check
// by eye: repeats, a failure mid-session, a step without a response, and a
// session whose rows come in two batches.
func TestSessionsByHand(t *testing.T) {
	const ms = int64(1e6)
	m := results.Meta{ScheduleHash: "h", Scenarios: map[string][]string{"s": {"s.a", "s.b"}}, Expect: map[string][]int{"s.b": {204}}}
	eps := []string{"home", "s.a", "s.b"}
	ok := func(slot uint64, ep uint16, due, lat int64, status uint16) results.Row {
		return results.Row{Slot: slot, Endpoint: ep, Scheduled: due, Sent: due, Latency: lat, Service: lat, Status: status}
	}
	captureFailed := results.Row{Slot: 3, Endpoint: 2, Scheduled: 31 * ms, Sent: -1, Latency: -1, Service: -1, Error: results.CaptureFailed}
	timeout := results.Row{Slot: 4, Endpoint: 2, Scheduled: 42 * ms, Sent: 43 * ms, Latency: -1, Service: -1, Error: results.Timeout}
	path := writeResults(t, m, eps,
		[]results.Row{
			ok(0, 0, 0, 5*ms, 200),     // a plain request: no session
			ok(1, 1, 10*ms, 2*ms, 200), // slot 1: a, b, b (repeat), all ok: 10 → 19 ms
			ok(1, 2, 13*ms, 2*ms, 204), //
			ok(2, 1, 20*ms, 1*ms, 200), // slot 2: b answers 200, which it does not expect
			ok(3, 1, 30*ms, 1*ms, 200), // slot 3: a, then b could not be rendered: 30 → 31 ms
			ok(2, 2, 22*ms, 4*ms, 200), //
			ok(4, 1, 40*ms, 1*ms, 200), // slot 4: b times out; last known instant is its send at 43 ms
			captureFailed, timeout,
		},
		[]results.Row{ok(1, 2, 16*ms, 3*ms, 204)}, // slot 1's repeat, in the next batch
	)
	rep, err := Build([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 1 {
		t.Fatalf("scenarios = %+v", rep.Scenarios)
	}
	sc := rep.Scenarios[0]
	if sc.Name != "s" || sc.Sessions != 4 || sc.Completed != 1 || sc.Failed != 3 || sc.RequestsPerSession != 2.25 {
		t.Errorf("scenario = %+v, want s: 4 sessions, 1 completed, 3 failed, 2.25 requests each", sc)
	}
	checkPercentiles(t, "session", sc.Session, []int64{1 * ms, 3 * ms, 6 * ms, 9 * ms})
}

func TestSlotInTwoScenariosIsAnError(t *testing.T) {
	m := results.Meta{Scenarios: map[string][]string{"x": {"x.a"}, "y": {"y.a"}}}
	path := writeResults(t, m, []string{"x.a", "y.a"}, []results.Row{
		{Slot: 7, Endpoint: 0, Latency: 1, Service: 1, Status: 200}, {Slot: 7, Endpoint: 1, Latency: 1, Service: 1, Status: 200},
	})
	_, err := Build([]string{path}, Options{})
	if err == nil || !strings.Contains(err.Error(), `slot 7 has rows of scenarios "x" and "y"`) {
		t.Fatalf("err = %v, want one naming slot 7 and both scenarios", err)
	}
}

func TestScenariosJSON(t *testing.T) {
	decode := func(spec synth.Spec) map[string]any {
		rep, err := Build([]string{writeRun(t, spec)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		if err := rep.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(buf.String()), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if _, ok := decode(synth.Spec{Rows: 1000, Seed: 1, Rate: 1000})["scenarios"]; ok {
		t.Error(`a run without scenarios has a "scenarios" key`)
	}
	scs, _ := decode(synth.Spec{Rows: 1000, Seed: 1, Rate: 1000, Sessions: true})["scenarios"].([]any)
	if len(scs) != 2 {
		t.Fatalf("scenarios = %v, want two", scs)
	}
	sc := scs[0].(map[string]any)
	for _, k := range []string{"name", "sessions", "completed", "failed", "session_ms", "requests_per_session"} {
		if _, ok := sc[k]; !ok {
			t.Errorf("scenario JSON lacks %q: %v", k, sc)
		}
	}
	for _, k := range []string{"min", "mean", "p50", "p90", "p95", "p99", "max"} {
		if _, ok := sc["session_ms"].(map[string]any)[k]; !ok {
			t.Errorf("session_ms lacks %q", k)
		}
	}
}

// TestScenarioSheetFollowsTheRequiredOnes checks that the scenario sheet
// is a fifth sheet, after the four the contract names in their order.
func TestScenarioSheetFollowsTheRequiredOnes(t *testing.T) {
	rep, err := Build([]string{writeRun(t, synth.Spec{Rows: 2000, Seed: 1, Rate: 1000, Sessions: true})}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(render(t, rep, XLSX)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := []string{SheetGlobal, SheetEndpoints, SheetStatus, SheetSamples, SheetScenarios}
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets = %q, want %q", got, want)
	}
	rows, err := f.GetRows(SheetScenarios)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1][0] != "browse" || rows[1][2] != strconv.FormatInt(rep.Scenarios[0].Sessions, 10) {
		t.Errorf("scenario sheet = %q", rows)
	}
}

func TestHTMLHasScenarioSection(t *testing.T) {
	rep, err := Build([]string{writeRun(t, synth.Spec{Rows: 2000, Seed: 1, Rate: 1000, Sessions: true})}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := string(render(t, rep, HTML))
	for _, want := range []string{"<h2>Scenarios</h2>", "<th>scenario</th>", "<td>browse</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestScenarioDeltaAgainstBaseline(t *testing.T) {
	cur := writeRun(t, synth.Spec{Rows: 4000, Seed: 1, Rate: 1000, Sessions: true})
	base := writeRun(t, synth.Spec{Rows: 4000, Seed: 2, Rate: 1000, Sessions: true})
	rep, err := Build([]string{cur}, Options{Baseline: []string{base}})
	if err != nil {
		t.Fatal(err)
	}
	for i, sc := range rep.Scenarios {
		b := rep.Baseline.Scenarios[i]
		d := rep.Delta.Scenarios[sc.Name]
		if len(d) != 2 || d["p50"].Abs != sc.Session.P50-b.Session.P50 || d["p99"].Abs != sc.Session.P99-b.Session.P99 {
			t.Errorf("delta of %s = %+v, want p50 and p99 differences", sc.Name, d)
		}
	}
	plain, err := Build([]string{cur}, Options{Baseline: []string{writeRun(t, synth.Spec{Rows: 1000, Seed: 3, Rate: 1000})}})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Delta.Scenarios != nil {
		t.Errorf("a baseline without scenarios gave scenario deltas %v", plain.Delta.Scenarios)
	}
}
