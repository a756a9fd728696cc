package report

import (
	"archive/zip"
	"io"
	"time"

	"github.com/xuri/excelize/v2"
)

// datedZip is the workbook's zip writer with a modification time on every
// entry. excelize's default leaves it zero, which unzip shows as the
// impossible date 1980-00-00; the run's start time is a true date and keeps
// the file the same for the same results.
type datedZip struct {
	*zip.Writer
	modified time.Time
}

func (z datedZip) Create(name string) (io.Writer, error) {
	return z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: z.modified})
}

// zipDate is the date the workbook's entries carry: the run's start, or the
// first day a zip can hold when the results name none.
func zipDate(startUnixNs int64) time.Time {
	if startUnixNs <= 0 {
		return time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Unix(0, startUnixNs).UTC().Truncate(time.Second)
}

// useDatedZip makes f write its entries dated t.
func useDatedZip(f *excelize.File, t time.Time) {
	f.SetZipWriter(func(w io.Writer) excelize.ZipWriter { return datedZip{zip.NewWriter(w), t} })
}

// sheetDimension is the used range of rows, "A1:E12": excelize leaves the
// <dimension ref> at "A1" when rows are set one by one, and readers that
// trust it (some importers do) then see a one-cell sheet.
func sheetDimension(rows [][]any) string {
	cols := 1
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	last, _ := excelize.CoordinatesToCellName(cols, max(len(rows), 1))
	return "A1:" + last
}
