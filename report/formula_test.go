package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tressi/tressi/results"
)

// Text from a plan or a server that starts like a formula (= + - @, tab,
// carriage return) must reach a spreadsheet as text, escaped with a leading
// quote as OWASP advises, never as a formula Excel or LibreOffice would run.
func TestSpreadsheetFormulasAreEscaped(t *testing.T) {
	hostile := []string{"=1+2", "+SUM(A1:A2)", "-2+3", "@cmd", "\t=1", "\r=1"}
	var rows []results.Row
	for i := range hostile {
		rows = append(rows, results.Row{Slot: uint64(i), Scheduled: int64(i), Sent: -1, Latency: -1, Service: -1,
			Endpoint: uint16(i), Error: results.NotSent})
	}
	dir := writeRows(t, results.Meta{PlanName: "p", ScheduleHash: "h"}, hostile, rows, `{"exit_status":"ok"}`)
	f, err := os.Create(filepath.Join(dir, SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := results.WriteSamples(f, []results.Sample{{Endpoint: "=1+2", Status: 200, Headers: "=HYPERLINK(\"http://x\")", Body: []byte("@SUM(1)")}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("csv", func(t *testing.T) {
		recs, err := csv.NewReader(bytes.NewReader(render(t, rep, CSV))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range recs[1:] {
			if want := "'" + hostile[i]; rec[1] != want {
				t.Errorf("row %d endpoint %q, want %q", i, rec[1], want)
			}
			if rec[3] != "-1" {
				t.Errorf("row %d sent_ns %q: numbers stay numbers", i, rec[3])
			}
		}
	})
	t.Run("xlsx", func(t *testing.T) {
		x, err := excelize.OpenReader(bytes.NewReader(render(t, rep, XLSX)))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		for _, sheet := range x.GetSheetList() {
			cells, err := x.GetRows(sheet)
			if err != nil {
				t.Fatal(err)
			}
			for r, row := range cells {
				for c, v := range row {
					if v != "" && (v[0] == '=' || v[0] == '+' || v[0] == '@' || v[0] == '\t' || v[0] == '\r' ||
						(v[0] == '-' && !isNumber(v))) {
						t.Errorf("%s row %d column %d: %q reaches the sheet unescaped", sheet, r+1, c+1, v)
					}
					if f, _ := x.GetCellFormula(sheet, cellName(c+1, r+1)); f != "" {
						t.Errorf("%s row %d column %d is a formula %q", sheet, r+1, c+1, f)
					}
				}
			}
		}
	})
}

func cellName(col, row int) string {
	n, _ := excelize.CoordinatesToCellName(col, row)
	return n
}

func isNumber(s string) bool {
	for i, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || (c == '-' || c == '+') && (i == 0 || s[i-1] == 'e' || s[i-1] == 'E')) {
			return false
		}
	}
	return len(s) > 0
}
