package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestReadEvents(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // id|type|data
	}{
		{"one", "id: 1\nevent: update\ndata: {}\n\n", []string{"1|update|{}"}},
		{"crlf and two data lines", "id: 2\r\ndata: a\r\ndata: b\r\n\r\n", []string{"2||a\nb"}},
		{"comments and no space", ": hello\ndata:x\n\n", []string{"||x"}},
		{"id carries over", "id: 7\ndata: a\n\ndata: b\n\n", []string{"7||a", "7||b"}},
		{"no data no event", "event: update\n\n", nil},
		{"unfinished last event dropped", "data: a\n\ndata: b", []string{"||a"}},
		{"unknown fields ignored", "retry: 10\nfoo: bar\ndata: c\n\n", []string{"||c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := ReadEvents(strings.NewReader(tc.in), func(e Event) error {
				got = append(got, e.ID+"|"+e.Type+"|"+string(e.Data))
				return nil
			})
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestReadEventsStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ReadEvents(strings.NewReader("data: a\n\ndata: b\n\n"), func(Event) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d events", err, n)
	}
}

// FuzzReadEvents: any bytes read without panic, every event has data, and
// an event written back the server's way reads the same.
func FuzzReadEvents(f *testing.F) {
	f.Add([]byte("id: 1\nevent: update\ndata: {\"a\":1}\n\n"), "x")
	f.Add([]byte(":c\r\ndata\r\n\r\n"), "")
	f.Fuzz(func(t *testing.T, in []byte, payload string) {
		_ = ReadEvents(bytes.NewReader(in), func(e Event) error {
			if e.Data == nil {
				t.Fatal("an event without data was dispatched")
			}
			return nil
		})
		if strings.ContainsAny(payload, "\r\n") {
			return
		}
		var got []byte
		_ = ReadEvents(strings.NewReader("id: 3\nevent: update\ndata: "+payload+"\n\n"), func(e Event) error {
			got = e.Data
			return nil
		})
		if string(got) != payload {
			t.Fatalf("data %q read back as %q", payload, got)
		}
	})
}
