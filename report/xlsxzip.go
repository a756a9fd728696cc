package report

import "time"

// zipDate is the date the workbook's entries carry: the run's start, or the
// first day a zip can hold when the results name none.
func zipDate(startUnixNs int64) time.Time {
	if startUnixNs <= 0 {
		return time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Unix(0, startUnixNs).UTC().Truncate(time.Second)
}

// sheetDimension is the used range of rows, "A1:E12": readers that trust
// the <dimension ref> (some importers do) see no more of a sheet than it
// says.
func sheetDimension(rows [][]any) string {
	cols := 1
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	return "A1:" + cellRef(cols, max(len(rows), 1))
}
