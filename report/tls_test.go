package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// A run whose rows carry connect_ns and whose meta.json counts TLS
// handshakes: the report sums the one and shows the other, and warns about
// targets whose certificates were not verified.
func TestReportShowsConnectTimeAndHandshakes(t *testing.T) {
	rows := []results.Row{
		{Slot: 0, Scheduled: 0, Sent: 10, Latency: 5_000_000, Service: 4_999_990, Status: 200, Connect: 3_000_000},
		{Slot: 1, Scheduled: 1_000_000, Sent: 1_000_010, Latency: 1_000_000, Service: 999_990, Status: 200},
		{Slot: 2, Scheduled: 2_000_000, Sent: 2_000_010, Latency: 2_000_000, Service: 1_999_990, Status: 200, Connect: 1_000_000},
	}
	dir := writeRows(t, results.Meta{RunID: "r", PlanName: "p", Shard: results.Shard{Count: 1}}, []string{"home"}, rows, `{"engine": "loop", "tls": {"handshakes": 2, "resumed": 1, "insecure_skip_verify": ["lab"]}}`)
	r, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Summary.Connect
	if c == nil || c.Opened != 2 || c.TotalMs != 4 || c.MeanMs != 2 || c.MaxMs != 3 {
		t.Errorf("connect %+v", c)
	}
	if tl := r.Summary.TLS; tl == nil || tl.Handshakes != 2 || tl.Resumed != 1 || len(tl.InsecureSkipVerify) != 1 {
		t.Errorf("tls %+v", tl)
	}
	var text bytes.Buffer
	if err := r.Render(&text, Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"connections opened", "2, 2.00 ms each on average (max 3.00 ms), 4.0 ms in all",
		"TLS handshakes", "2, 1 of them resumed", "insecure_skip_verify) for target lab"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report lacks %q:\n%s", want, text.String())
		}
	}
}
