package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// meta.json's protocols object reaches the report: the connections each
// target opened, by the protocol they spoke, in the text, Markdown and
// JSON reports.
func TestReportShowsProtocols(t *testing.T) {
	dir := writeRows(t, results.Meta{RunID: "r", PlanName: "p", Shard: results.Shard{Count: 1}}, []string{"home"}, []results.Row{{Slot: 0, Sent: 10, Latency: 1_000_000, Service: 999_990, Status: 200}},
		`{"engine": "loop", "protocols": {"web": {"http/1.1": 4, "h2": 2}, "api": {"h2c": 10}}}`)
	r, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int64{"web": {"http/1.1": 4, "h2": 2}, "api": {"h2c": 10}}
	if !reflect.DeepEqual(r.Summary.Protocols, want) {
		t.Errorf("protocols %v, want %v", r.Summary.Protocols, want)
	}
	line := "api: h2c 10; web: h2 2, http/1.1 4"
	for _, format := range []Format{Text, Markdown} {
		var out bytes.Buffer
		if err := r.Render(&out, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "connections by protocol") || !strings.Contains(out.String(), line) {
			t.Errorf("format %v lacks %q:\n%s", format, line, out.String())
		}
	}
	var js bytes.Buffer
	if err := r.Render(&js, JSON); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Protocols map[string]map[string]int64 `json:"protocols"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || !reflect.DeepEqual(back.Protocols, want) {
		t.Errorf("JSON protocols %v (%v), want %v", back.Protocols, err, want)
	}
}

// Shards' counts add up; what is not a count is passed over.
func TestAddProtocolsSumsShards(t *testing.T) {
	var got map[string]map[string]int64
	for _, env := range []string{
		`{"protocols": {"api": {"h2": 10}}}`,
		`{"protocols": {"api": {"h2": 5, "http/1.1": 1}, "web": "nonsense"}}`,
		`{"engine": "fasthttp"}`,
		`{"protocols": {"api": {"h2": "ten", "h2c": -3}}}`,
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(env), &m); err != nil {
			t.Fatal(err)
		}
		got = addProtocols(got, m)
	}
	want := map[string]map[string]int64{"api": {"h2": 15, "http/1.1": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := addProtocols(nil, map[string]any{}); got != nil {
		t.Fatalf("no protocols object: %v, want nil", got)
	}
}
