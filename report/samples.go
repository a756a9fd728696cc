package report

import (
	"strings"
	"unicode/utf8"

	"github.com/tressi/tressi/results"
)

// Sample is one sampled response as reports show it.
type Sample struct {
	Endpoint string `json:"endpoint"`
	Status   int    `json:"status"`
	Error    string `json:"error,omitempty"`
	Detail   string `json:"detail,omitempty"` // why a request failed, in words
	BodySize int64  `json:"body_size"`
	Headers  string `json:"headers,omitempty"`
	// Body is the kept prefix as text; binary bodies are summarised.
	Body string `json:"body"`
}

// sampleBodyShown bounds the body text in reports: enough to recognise an
// error page, small enough for a spreadsheet cell and a terminal.
const sampleBodyShown = 1024

func newSample(s results.Sample) Sample {
	return Sample{
		Endpoint: s.Endpoint, Status: int(s.Status), Error: s.Error, Detail: s.Detail,
		BodySize: int64(s.BodySize), Headers: s.Headers, Body: bodyText(s.Body),
	}
}

func bodyText(b []byte) string {
	if len(b) > sampleBodyShown {
		b = b[:sampleBodyShown]
	}
	if !utf8.Valid(b) {
		// A cut may split the last rune; only call it binary if more is wrong.
		trimmed := b
		for len(trimmed) > 0 && !utf8.Valid(trimmed) && len(b)-len(trimmed) < utf8.UTFMax {
			trimmed = trimmed[:len(trimmed)-1]
		}
		if !utf8.Valid(trimmed) {
			return "(binary body)"
		}
		b = trimmed
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
