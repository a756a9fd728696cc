package report

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the report JSON of docs/contracts.md: the summary's keys at
// the top level, plus "baseline" and "delta" when there is a baseline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
