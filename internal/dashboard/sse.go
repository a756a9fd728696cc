package dashboard

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// Event is one server-sent event.
type Event struct {
	ID, Type string
	Data     []byte
}

// maxEventLine bounds one line of an event stream: a whole view in one
// data line is a few MB.
const maxEventLine = 64 << 20

// ReadEvents reads a text/event-stream (the WHATWG HTML spec's format:
// "field: value" lines, an event per blank line, ":" comments, lines ending
// in LF or CRLF) and calls fn with each event until r ends, fn fails, or a
// line is longer than 64 MiB. An event without data is not dispatched, as
// a browser does.
func ReadEvents(r io.Reader, fn func(Event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	var ev Event
	var data bytes.Buffer
	hasData := false
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if len(line) == 0 {
			if hasData {
				ev.Data = append([]byte{}, data.Bytes()...)
				if err := fn(ev); err != nil {
					return err
				}
			}
			ev.Type, ev.Data, hasData = "", nil, false // the id carries over, as in a browser
			data.Reset()
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		case "event":
			ev.Type = string(value)
		case "id":
			if !bytes.ContainsRune(value, 0) {
				ev.ID = string(value)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the event stream: %w", err)
	}
	return nil
}
