package compile

import (
	"testing"
	"testing/fstest"
)

// An endpoint may take row.* from the plan's only data block; rows go to
// slots in turn.
func TestEndpointRows(t *testing.T) {
	fsys := fstest.MapFS{
		"p.hcl": {Data: []byte(`
target "t" { url = "http://127.0.0.1:9" }
data "users" { csv = "users.csv" }
endpoint "e" { path = "/u/${row.name}" }
load {
  stage {
    duration = "1s"
    rate     = 3
  }
}
`)},
		"users.csv": {Data: []byte("name\nann\nbob\n")},
	}
	s := compileFS(t, fsys)
	req := &s.Requests[s.Entries[0].Steps[0].Request]
	for slot, want := range []string{"/u/ann", "/u/bob", "/u/ann"} {
		v := Values{Seed: s.Seed, Slot: uint64(slot), Row: s.Row(0, uint64(slot))}
		if got := string(req.URI.Append(nil, &v)); got != want {
			t.Errorf("slot %d: %s, want %s", slot, got, want)
		}
	}
}
