package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// TestGRPCCodesByName: a gRPC endpoint's statuses are gRPC codes, counted
// by name per endpoint and in their own section, apart from HTTP statuses;
// a call that failed without a code is no OK.
func TestGRPCCodesByName(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "results.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	m := results.Meta{Version: "test", RunID: "grpc", ScheduleHash: "h", PlanName: "grpc",
		Expect: map[string][]int{"get": {0}, "missing": {5}}, GRPC: []string{"get", "missing"}}
	w, err := results.NewWriter(f, m, []string{"get", "missing", "web"})
	if err != nil {
		t.Fatal(err)
	}
	var rows []results.Row
	for i := range 40 {
		r := results.Row{Slot: uint64(i), Scheduled: int64(i) * 1e6, Sent: int64(i) * 1e6, Latency: 1e6, Service: 1e6}
		switch {
		case i < 20: // get: 18 OK, 2 UNAVAILABLE
			if i >= 18 {
				r.Status = 14
			}
		case i < 30: // missing: NOT_FOUND, as it expects
			r.Endpoint, r.Status = 1, 5
		case i < 32: // get, refused: no code
			r.Error, r.Sent, r.Latency, r.Service = results.ConnectRefused, -1, -1, -1
		default: // an HTTP endpoint beside them
			r.Endpoint, r.Status = 2, 200
		}
		rows = append(rows, r)
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 36 || rep.GRPCCodes["OK"] != 18 || rep.GRPCCodes["UNAVAILABLE"] != 2 || rep.GRPCCodes["NOT_FOUND"] != 10 ||
		rep.UnexpectedGRPC["UNAVAILABLE"] != 2 || rep.UnexpectedGRPC["NOT_FOUND"] != 0 || rep.Status["200"] != 8 || rep.Status["0"] != 0 {
		t.Fatalf("ok %d, grpc %v, unexpected %v, status %v", rep.OK, rep.GRPCCodes, rep.UnexpectedGRPC, rep.Status)
	}
	var out bytes.Buffer
	rep.Render(&out, Text)
	text := out.String()
	for _, want := range []string{"OK×18 UNAVAILABLE×2", "NOT_FOUND×10", "gRPC codes", "14 UNAVAILABLE", "5 NOT_FOUND"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}
