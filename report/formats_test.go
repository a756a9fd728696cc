package report

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tressi/tressi/report/synth"
)

var formatSpec = synth.Spec{Rows: 20_000, Seed: 11, Rate: 2000}

func buildFixture(t *testing.T, opts Options) *Report {
	t.Helper()
	rep, err := Build([]string{writeRun(t, formatSpec)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func render(t *testing.T, r *Report, f Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.Render(&buf, f); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return buf.Bytes()
}

func TestCSVReadsBackEveryRow(t *testing.T) {
	rep := buildFixture(t, Options{})
	recs, err := csv.NewReader(bytes.NewReader(render(t, rep, CSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != formatSpec.Rows+1 {
		t.Fatalf("%d CSV records, want header + %d", len(recs), formatSpec.Rows)
	}
	if strings.Join(recs[0], ",") != "slot,endpoint,scheduled_ns,sent_ns,latency_ns,service_ns,status,error,bytes_out,bytes_in" {
		t.Errorf("header = %v", recs[0])
	}
	for _, k := range []int{0, 1234, formatSpec.Rows - 1} {
		r := synth.Row(formatSpec.Seed, formatSpec.Rate, uint64(k))
		want := []string{strconv.Itoa(k), synth.Endpoints[r.Endpoint], strconv.FormatInt(r.Scheduled, 10), strconv.FormatInt(r.Sent, 10),
			strconv.FormatInt(r.Latency, 10), strconv.FormatInt(r.Service, 10), strconv.Itoa(int(r.Status)), r.Error.String(),
			strconv.Itoa(int(r.BytesOut)), strconv.Itoa(int(r.BytesIn))}
		if got := recs[k+1]; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("row %d = %v, want %v", k, got, want)
		}
	}
}

func TestCSVQuotesAwkwardNames(t *testing.T) {
	for in, want := range map[string]string{"home": "home", `a,b`: `"a,b"`, `say "hi"`: `"say ""hi"""`, "": ""} {
		if got := csvField(in); got != want {
			t.Errorf("csvField(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSONHasTheContractKeys(t *testing.T) {
	rep := buildFixture(t, Options{Baseline: []string{writeRun(t, synth.Spec{Rows: 10_000, Seed: 12, Rate: 2000})}})
	var doc map[string]any
	if err := json.Unmarshal(render(t, rep, JSON), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"requests", "sent", "ok", "errors", "error_rate", "duration_s", "throughput_rps", "latency_ms", "service_ms", "status", "error_kinds", "endpoints", "thresholds", "baseline", "delta"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	lat := doc["latency_ms"].(map[string]any)
	for _, k := range []string{"min", "mean", "p50", "p90", "p95", "p99", "p999", "max"} {
		if _, ok := lat[k].(float64); !ok {
			t.Errorf("latency_ms.%s missing", k)
		}
	}
	ep := doc["endpoints"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "requests", "ok", "errors", "latency_ms", "status"} {
		if _, ok := ep[k]; !ok {
			t.Errorf("endpoints[0] lacks %q", k)
		}
	}
	if doc["requests"].(float64) != 20000 || doc["baseline"].(map[string]any)["requests"].(float64) != 10000 {
		t.Errorf("requests %v, baseline requests %v", doc["requests"], doc["baseline"].(map[string]any)["requests"])
	}
	d := doc["delta"].(map[string]any)
	tp := d["throughput_rps"].(map[string]any)
	want := rep.ThroughputRPS - rep.Baseline.ThroughputRPS
	if tp["abs"].(float64) != want || tp["rel"].(float64) != want/rep.Baseline.ThroughputRPS {
		t.Errorf("delta.throughput_rps = %v, want abs %v", tp, want)
	}
	if _, ok := d["latency_ms"].(map[string]any)["p99"].(map[string]any)["rel"]; !ok {
		t.Error("delta.latency_ms.p99.rel missing")
	}
}

// TestXLSXOpensWithoutExcelize reads the workbook as the zip of XML parts
// that it is, with the standard library only.
func TestXLSXOpensWithoutExcelize(t *testing.T) {
	rep := buildFixture(t, Options{})
	data := render(t, rep, XLSX)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	part := func(name string) []byte {
		f, err := zr.Open(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		return b
	}
	var wb struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := xml.Unmarshal(part("xl/workbook.xml"), &wb); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range wb.Sheets {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, "|"); got != "Global Summary|Endpoint Summary|Status Code Distribution|Sampled Responses" {
		t.Fatalf("sheets = %q", got)
	}
	var sst struct {
		Items []struct {
			T string `xml:"t"`
		} `xml:"si"`
	}
	if f, err := zr.Open("xl/sharedStrings.xml"); err == nil {
		b, _ := io.ReadAll(f)
		f.Close()
		if err := xml.Unmarshal(b, &sst); err != nil {
			t.Fatal(err)
		}
	}
	type cell struct {
		Ref    string `xml:"r,attr"`
		Type   string `xml:"t,attr"`
		Value  string `xml:"v"`
		Inline string `xml:"is>t"`
	}
	var ws struct {
		Rows []struct {
			Cells []cell `xml:"c"`
		} `xml:"sheetData>row"`
	}
	if err := xml.Unmarshal(part("xl/worksheets/sheet1.xml"), &ws); err != nil {
		t.Fatal(err)
	}
	cells := map[string]string{}
	for _, r := range ws.Rows {
		for _, c := range r.Cells {
			v := c.Value
			switch c.Type {
			case "s":
				i, _ := strconv.Atoi(c.Value)
				v = sst.Items[i].T
			case "inlineStr":
				v = c.Inline
			}
			cells[c.Ref] = v
		}
	}
	if cells["A2"] != "requests" || cells["B2"] != "20000" || cells["A8"] != "throughput_rps" {
		t.Errorf("Global Summary A2=%q B2=%q A8=%q", cells["A2"], cells["B2"], cells["A8"])
	}
}

// skipWithoutChromium skips where Debian's chromium is missing.
func skipWithoutChromium(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium is not on PATH (CI installs it)")
	}
}

// chromiumDOM renders rep as HTML, loads it in headless Chromium with the
// network off, and returns the DOM its scripts left, and what Chromium said.
func chromiumDOM(t *testing.T, rep *Report) (dom, stderr string) {
	t.Helper()
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, render(t, rep, HTML), 0o644); err != nil {
		t.Fatal(err)
	}
	return dumpDOM(t, "chromium", "file://"+page)
}

// dumpDOM loads url in headless Chromium and returns the DOM its scripts
// left and what Chromium said. A Chromium that crashes (it segfaults now
// and then on a busy machine, whatever the page) is started again, up to
// three times: its crash says nothing about the page.
func dumpDOM(t *testing.T, chromium, url string) (dom, stderr string) {
	t.Helper()
	for try := 1; ; try++ {
		cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
			"--dump-dom", url)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err == nil {
			return string(out), errb.String()
		}
		if !crashed(err) || try == 3 {
			t.Fatalf("chromium: %v\n%s", err, errb.String())
		}
		t.Logf("chromium crashed (%v); starting it again", err)
	}
}

// crashed says whether err is a process killed by a signal.
func crashed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// TestHTMLRendersChartsInChromium loads the page in a real browser with the
// network off and checks the script drew every chart.
func TestHTMLRendersChartsInChromium(t *testing.T) {
	skipWithoutChromium(t)
	rep := buildFixture(t, Options{Baseline: []string{writeRun(t, synth.Spec{Rows: 10_000, Seed: 12, Rate: 2000})}})
	s, stderr := chromiumDOM(t, rep)
	if !strings.Contains(s, `data-rendered="true"`) {
		t.Fatalf("the page's script did not finish; stderr:\n%s", stderr)
	}
	for _, chart := range []string{"latency", "throughput", "distribution", "status"} {
		if !strings.Contains(s, `data-chart="`+chart+`"`) {
			t.Errorf("no %s chart in the DOM", chart)
		}
	}
	for _, series := range []string{`data-series="p99"`, `data-series="p99 (baseline)"`, `data-series="responses/s"`, `data-series="latency"`, `data-status="200"`} {
		if !strings.Contains(s, series) {
			t.Errorf("DOM lacks %s", series)
		}
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	page := string(render(t, buildFixture(t, Options{}), HTML))
	for _, bad := range []string{"http://", "https://", "<link", "src="} {
		if strings.Contains(strings.ReplaceAll(page, "http://www.w3.org/2000/svg", ""), bad) {
			t.Errorf("HTML contains %q: it must not need the network", bad)
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := ParseFormat("pdf"); err == nil || !strings.Contains(err.Error(), "text, md, json, csv, html, xlsx") {
		t.Errorf("err = %v", err)
	}
}
