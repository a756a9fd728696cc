package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

func TestCellRef(t *testing.T) {
	for col, want := range map[int]string{1: "A1", 26: "Z1", 27: "AA1", 52: "AZ1", 53: "BA1", 702: "ZZ1", 703: "AAA1"} {
		if got := cellRef(col, 1); got != want {
			t.Errorf("cellRef(%d, 1) = %s, want %s", col, got, want)
		}
		if lib, _ := excelize.CoordinatesToCellName(col, 7); cellRef(col, 7) != lib {
			t.Errorf("cellRef(%d, 7) = %s, excelize says %s", col, cellRef(col, 7), lib)
		}
	}
}

// TestXLSXCells: what excelize reads back from a workbook of awkward
// cells: numbers stay numbers, text keeps its spaces and newlines,
// characters XML cannot hold become U+FFFD, a text longer than a cell
// holds is cut at Excel's limit, and no cell is lost or moved.
func TestXLSXCells(t *testing.T) {
	long := strings.Repeat("é", maxCellChars+10)
	rows := [][]any{
		{"name", "value"},
		{"  padded\nline ", 3.25},
		{"ctl\x01\x1fend", int64(-12)},
		{long, 7},
		{"status", uint16(503)},
		{"nan", math.NaN()},
		{"", nil, "third"},
	}
	var buf bytes.Buffer
	if err := writeXLSX(&buf, []xlsxSheet{{"One", rows}, {"Two & more", [][]any{{"x"}}}}, time.Unix(1_700_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := strings.Join(f.GetSheetList(), "|"); got != "One|Two & more" {
		t.Fatalf("sheets %q", got)
	}
	want := map[string]string{
		"A1": "name", "B1": "value", "A2": "  padded\nline ", "B2": "3.25", "A3": "ctl\uFFFD\uFFFDend", "B3": "-12",
		"A4": strings.Repeat("é", maxCellChars), "B4": "7", "B5": "503", "B6": "NaN", "A7": "", "B7": "", "C7": "third",
	}
	for ref, w := range want {
		got, err := f.GetCellValue("One", ref)
		if err != nil || got != w {
			t.Errorf("%s = %.40q (%v), want %.40q", ref, got, err, w)
		}
	}
	for _, ref := range []string{"B2", "B3", "B4", "B5"} {
		if typ, _ := f.GetCellType("One", ref); typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
			t.Errorf("%s is of type %v, want a number", ref, typ)
		}
	}
	if v, _ := f.GetCellValue("Two & more", "A1"); v != "x" {
		t.Errorf("second sheet A1 = %q", v)
	}
}
