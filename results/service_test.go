package results

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// serviceRows are rows of every kind service_ns can be derived for: a
// response, a request sent but unanswered, one never sent, and a response
// to a request whose send went unrecorded.
func serviceRows() []Row {
	rows := randomRows(3000, 9)
	for i := range rows {
		r := &rows[i]
		switch i % 4 {
		case 1: // timed out
			r.Latency, r.Service, r.Error = -1, -1, Timeout
		case 2: // never sent
			r.Sent, r.Latency, r.Service, r.Error = -1, -1, -1, NotSent
		}
	}
	return rows
}

// TestServiceIsDerived: files store no service_ns column, and every reader
// path (fast, arrow-go, Only) gives back the service time each row had.
func TestServiceIsDerived(t *testing.T) {
	rows := serviceRows()
	data := writeRows(t, rows, 1000)
	defer func() { fastReader = true }()
	for _, fast := range []bool{true, false} {
		fastReader = fast
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Schema.FieldIndices(ColService)) != 0 {
			t.Fatalf("the schema stores %s: %v", ColService, fieldNames(r.Schema))
		}
		if got := readRows(t, r); !slices.Equal(got, rows) {
			t.Fatalf("fast reader %v: rows differ from those written", fast)
		}
		r.Close()
	}
	fastReader = true
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Only(ColService); err != nil {
		t.Fatal(err)
	}
	var service []int64
	for b, ok := r.Next(); ok; b, ok = r.Next() {
		service = append(service, b.Service...)
	}
	for i, want := range rows {
		if service[i] != want.Service {
			t.Fatalf("row %d: Only(service_ns) read %d, wrote %d", i, service[i], want.Service)
		}
	}
}

// TestFilesWithServiceStillRead: files of every older format, which store
// service_ns, read back as written, through both readers.
func TestFilesWithServiceStillRead(t *testing.T) {
	rows := serviceRows()
	defer func() { fastReader = true }()
	for _, format := range []checksumFormat{serviceStreamChecksums, bodyChecksums, contentChecksums, noChecksums} {
		data := writeRowsAs(t, rows, 1000, format)
		for _, fast := range []bool{true, false} {
			fastReader = fast
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Schema.FieldIndices(ColService)) != 1 {
				t.Fatalf("format %d: no %s column", format, ColService)
			}
			if got := readRows(t, r); !slices.Equal(got, rows) || r.Truncated != nil {
				t.Fatalf("format %d, fast reader %v: rows differ from those written (%v)", format, fast, r.Truncated)
			}
			r.Close()
		}
	}
}

// TestWriterRefusesServiceItCannotDerive: a row whose service time is not
// latency − send lag would read back as another one, so it is refused.
func TestWriterRefusesServiceItCannotDerive(t *testing.T) {
	w, err := NewWriter(new(bytes.Buffer), testMeta, []string{"home"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Write([]Row{{Slot: 3, Scheduled: 100, Sent: 150, Latency: 1000, Service: 1000, Status: 200}})
	if err == nil || !strings.Contains(err.Error(), "slot 3 has service_ns 1000") || !strings.Contains(err.Error(), "is 950") {
		t.Fatalf("err = %v, want a refusal naming slot 3 and the derived 950", err)
	}
}
