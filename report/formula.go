package report

// A spreadsheet runs a cell that starts with = + - or @ as a formula, and
// tab or carriage return can hide such a start; endpoint names come from
// plans and sampled headers and bodies from servers, so either could carry
// one (=HYPERLINK(…), DDE commands). OWASP's advice: prefix such text with a
// quote, which makes it text. Only text is escaped: numbers keep their sign.

// spreadsheetText escapes s for a CSV or XLSX cell.
func spreadsheetText(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// escapeCells escapes every text cell of rows in place.
func escapeCells(rows [][]any) [][]any {
	for _, row := range rows {
		for i, v := range row {
			if s, ok := v.(string); ok {
				row[i] = spreadsheetText(s)
			}
		}
	}
	return rows
}
