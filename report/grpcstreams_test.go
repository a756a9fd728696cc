package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// meta.json's grpc_streams reaches the report: each stream's calls and
// messages in the text and Markdown summary and in the JSON.
func TestReportShowsGRPCStreams(t *testing.T) {
	dir := writeRows(t, results.Meta{RunID: "r", PlanName: "p", Shard: results.Shard{Count: 1}}, []string{"chat.say"}, []results.Row{{Slot: 0, Sent: 10, Latency: 1_000_000, Service: 999_990}},
		`{"engine": "loop", "grpc_streams": {"chat.chat": {"calls": 500, "sent": 5000, "received": 4990, "unmatched": 3}}}`)
	r, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int64{"chat.chat": {"calls": 500, "sent": 5000, "received": 4990, "unmatched": 3}}
	if !reflect.DeepEqual(r.Summary.GRPCStreams, want) {
		t.Errorf("streams %v, want %v", r.Summary.GRPCStreams, want)
	}
	line := "chat.chat: 500 calls, 5,000 sent, 4,990 received, 3 unmatched"
	for _, format := range []Format{Text, Markdown} {
		var out bytes.Buffer
		if err := r.Render(&out, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "gRPC streams") || !strings.Contains(out.String(), line) {
			t.Errorf("format %v lacks %q:\n%s", format, line, out.String())
		}
	}
	var js bytes.Buffer
	if err := r.Render(&js, JSON); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Streams map[string]map[string]int64 `json:"grpc_streams"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || !reflect.DeepEqual(back.Streams, want) {
		t.Errorf("JSON grpc_streams %v (%v), want %v", back.Streams, err, want)
	}
}
