package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tressi/tressi/report/synth"
)

// TestReportsStatePrecision: the JSON says how exact its latency figures
// are, and the text and Markdown latency tables say it in words.
func TestReportsStatePrecision(t *testing.T) {
	dir := writeRun(t, synth.Spec{Rows: 2000, Seed: 3, Rate: 1000})
	r, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Render(&b, JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Precision struct {
			QuantileRelativeError float64  `json:"quantile_relative_error"`
			Exact                 []string `json:"exact"`
		} `json:"precision"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Precision.QuantileRelativeError != 0.01 || strings.Join(doc.Precision.Exact, ",") != "count,min,mean,max" {
		t.Errorf("precision = %+v", doc.Precision)
	}
	for _, f := range []Format{Text, Markdown, HTML} {
		b.Reset()
		if err := r.Render(&b, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "within 1% of the exact nearest-rank value") {
			t.Errorf("%s report does not state the percentiles' precision", f)
		}
	}
}
