package results

import (
	"bytes"
	"testing"
)

// testdata/before-connect-ns.arrow was written by tressi before the
// connect_ns column existed: it still reads, with Connect nil (all zeros).
func TestFilesBeforeConnectNsStillRead(t *testing.T) {
	r, err := Open("testdata/before-connect-ns.arrow")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, ok := r.Next()
	if !ok || b.Len != 2 || b.Connect != nil || b.Status[0] != 200 || b.BytesIn[0] != 60 {
		t.Fatalf("batch %+v ok=%v err=%v", b, ok, r.Err())
	}
}

// A row's Connect goes out and comes back.
func TestConnectNsRoundTrip(t *testing.T) {
	rows := []Row{{Slot: 0, Sent: 1, Latency: 9, Service: 8, Status: 200, Connect: 7_000_000}, {Slot: 1, Sent: 2, Latency: 3, Service: 1, Status: 200}}
	r, err := NewReader(bytes.NewReader(writeRows(t, rows, 2)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, ok := r.Next()
	if !ok || len(b.Connect) != 2 || b.Connect[0] != 7_000_000 || b.Connect[1] != 0 {
		t.Fatalf("connect column %v", b.Connect)
	}
}
