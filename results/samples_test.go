package results

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Every single-bit flip of a samples file is either refused or changes
// nothing that is read: no damaged header, body or name reaches a report.
func TestSamplesFlipsAreNoticed(t *testing.T) {
	in := []Sample{
		{Endpoint: "home", Status: 200, Headers: "Content-Type: text/plain\r\nServer: nginx\r\n", Body: []byte("hello, world"), BodySize: 12},
		{Endpoint: "login", Status: 401, Headers: "WWW-Authenticate: Basic\r\n", Body: []byte(strings.Repeat("denied ", 40)), BodySize: 280},
		{Endpoint: "home", Error: "tls", Detail: "certificate signed by unknown authority"},
	}
	var buf bytes.Buffer
	if err := WriteSamples(&buf, in); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	want, err := ReadSamples(bytes.NewReader(good))
	if err != nil || !reflect.DeepEqual(want, in) {
		t.Fatalf("round trip: %+v, %v", want, err)
	}
	var refused, harmless int
	for i := range good {
		for _, bit := range []byte{0x01, 0x80} {
			bad := bytes.Clone(good)
			bad[i] ^= bit
			got, err := ReadSamples(bytes.NewReader(bad))
			switch {
			case err != nil:
				refused++
			case reflect.DeepEqual(got, in):
				harmless++
			default:
				t.Fatalf("byte %d ^ %#x: read as %+v without an error", i, bit, got)
			}
		}
	}
	t.Logf("%d flips refused, %d changed nothing read", refused, harmless)
	if refused == 0 {
		t.Fatal("no flip was refused")
	}
}

// A samples file of another writer (no checksum) reads as before.
func TestSamplesWithoutChecksumRead(t *testing.T) {
	var buf bytes.Buffer
	if err := writeSamplesSchema(&buf, sampleSchema, []Sample{{Endpoint: "home", Status: 200, Body: []byte("ok"), BodySize: 2}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSamples(&buf)
	if err != nil || len(got) != 1 || string(got[0].Body) != "ok" {
		t.Fatalf("%+v, %v", got, err)
	}
}
