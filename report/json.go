package report

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the report JSON of docs/contracts.md: the summary's keys at
// the top level, plus "baseline" and "delta" when there is a baseline.
//
// What the other formats open with (banner.go: a partial, stopped or late
// run) leads its warnings, so a JSON reader is told as much as a person.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	out := *r
	if b := r.banner(); b != nil {
		out.Warnings = append(append([]string{b.Title}, b.Notes...), r.Warnings...)
	}
	return enc.Encode(&out)
}
