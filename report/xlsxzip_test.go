package report

import (
	"archive/zip"
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// TestXLSXDimensionsAndDates: each sheet's <dimension ref> covers its
// cells, and every zip entry carries the run's start as its date (not the
// impossible 1980-00-00 unzip showed).
func TestXLSXDimensionsAndDates(t *testing.T) {
	rep := buildFixture(t, Options{})
	data := render(t, rep, XLSX)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(0, rep.Run.StartUnixNs).UTC().Truncate(time.Second)
	dimRe := regexp.MustCompile(`<dimension ref="([A-Z0-9:]+)"`)
	cellRe := regexp.MustCompile(`<c r="([A-Z]+[0-9]+)"`)
	sheets := 0
	for _, f := range zr.File {
		if !f.Modified.UTC().Equal(start) {
			t.Errorf("%s dated %v, want the run's start %v", f.Name, f.Modified.UTC(), start)
		}
		if !strings.HasPrefix(f.Name, "xl/worksheets/sheet") {
			continue
		}
		sheets++
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		xml, _ := io.ReadAll(rc)
		rc.Close()
		maxCol, maxRow := 1, 1
		for _, m := range cellRe.FindAllStringSubmatch(string(xml), -1) {
			c, r, err := excelize.CellNameToCoordinates(m[1])
			if err != nil {
				t.Fatal(err)
			}
			maxCol, maxRow = max(maxCol, c), max(maxRow, r)
		}
		want, _ := excelize.CoordinatesToCellName(maxCol, maxRow)
		dim := dimRe.FindStringSubmatch(string(xml))
		if dim == nil || dim[1] != "A1:"+want {
			t.Errorf("%s: dimension %v, want A1:%s", f.Name, dim, want)
		}
		if maxRow < 2 {
			t.Errorf("%s has a single row: the fixture should fill it", f.Name)
		}
	}
	if sheets < 4 {
		t.Errorf("%d worksheets", sheets)
	}
}

func TestZipDateWithoutStart(t *testing.T) {
	if d := zipDate(0); d.Year() != 1980 || d.Month() != time.January || d.Day() != 1 {
		t.Errorf("zipDate(0) = %v", d)
	}
}
