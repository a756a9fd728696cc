package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// verify checks that every slot holds the rows its schedule says it
// stands for, not only that every slot is there: a session slot with one
// row too many (a refused WebSocket upgrade once wrote its connect row
// twice) or one too few fails, naming the slot, and the report warns
// naming it; the run as written passes, and its report has no such
// warning. A WebSocket run is counted too: its plan.tplan does not read
// back (compile.ReadTPlan refuses its hash), and verify counts against
// the schedule it compiled again.
func TestVerifyCountsRowsPerSlot(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(testserver.Options{})
	go srv.Serve(ln)
	defer srv.Close()
	path := writePlan(t, fmt.Sprintf(`
target "t" {
  url = "http://%s"
}
endpoint "home" {
  path = "/"
}
scenario "s" {
  step "a" {
    path   = "/"
    repeat = 2
  }
  step "b" {
    path = "/"
  }
}
load {
  stage {
    duration = "500ms"
    rate     = 10
  }
}
`, ln.Addr()))
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, 0, "apply", path, "--out", dir, "--quiet")
	stdout, _ := mustRun(t, 0, "verify", dir)
	if !strings.Contains(stdout, "every slot holds the rows its schedule says it stands for") {
		t.Fatalf("verify of the run as written:\n%s", stdout)
	}
	if w := reportJSON(t, dir).Summary.Warnings; strings.Contains(strings.Join(w, "\n"), "stands for") {
		t.Fatalf("the report of the run as written warns: %q", w)
	}

	wsPath := writePlan(t, fmt.Sprintf(`
target "t" {
  url = "http://%s"
}
scenario "w" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "close" {
    close = 1000
  }
}
load {
  stage {
    duration = "300ms"
    rate     = 10
  }
}
`, ln.Addr()))
	wsDir := filepath.Join(t.TempDir(), "ws")
	mustRun(t, 0, "apply", wsPath, "--out", wsDir, "--quiet")
	if stdout, _ := mustRun(t, 0, "verify", wsDir); !strings.Contains(stdout, "every slot holds the rows its schedule says it stands for") {
		t.Fatalf("verify of a WebSocket run:\n%s", stdout)
	}

	rows, meta, names := readAllRows(t, filepath.Join(dir, exec.ResultsFile))
	session := -1 // a row of a session slot
	for i, r := range rows {
		if strings.HasPrefix(names[r.Endpoint], "s.") {
			session = i
			break
		}
	}
	if session < 0 {
		t.Fatal("no session row")
	}
	for _, c := range []struct {
		name string
		edit func([]results.Row) []results.Row
		want string
	}{
		{"a session row twice", func(rs []results.Row) []results.Row { return append(rs, rs[session]) },
			fmt.Sprintf("slot %d: 4 rows, s stands for 3", rows[session].Slot)},
		{"a session row lost", func(rs []results.Row) []results.Row { return append(rs[:session:session], rs[session+1:]...) },
			fmt.Sprintf("slot %d: 2 rows, s stands for 3", rows[session].Slot)},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "run")
			copyDir(t, dir, bad)
			writeAllRows(t, filepath.Join(bad, exec.ResultsFile), meta, names, c.edit(append([]results.Row(nil), rows...)))
			stdout, _ := mustRun(t, ExitInvalid, "verify", bad)
			if !strings.Contains(stdout, c.want) || !strings.Contains(stdout, "is NOT verified") {
				t.Fatalf("verify says:\n%s\nwant it to name %q", stdout, c.want)
			}
			rep := reportJSON(t, bad)
			if !strings.Contains(strings.Join(rep.Summary.Warnings, "\n"), c.want) {
				t.Fatalf("the report's warnings %q do not name %q", rep.Summary.Warnings, c.want)
			}
		})
	}
}

func readAllRows(t *testing.T, path string) ([]results.Row, results.Meta, []string) {
	t.Helper()
	r, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []results.Row
	var names []string
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		names = b.EndpointNames
		for i := 0; i < b.Len; i++ {
			kind, _ := results.ParseErrorKind(b.ErrorNames[b.Error[i]])
			row := results.Row{Slot: b.Slot[i], Scheduled: b.Scheduled[i], Sent: b.Sent[i], Latency: b.Latency[i],
				Service: b.Service[i], Status: b.Status[i], Error: kind, BytesOut: b.BytesOut[i], BytesIn: b.BytesIn[i],
				Endpoint: uint16(b.Endpoint[i])}
			rows = append(rows, row)
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return rows, r.Meta, names
}

func writeAllRows(t *testing.T, path string, m results.Meta, names []string, rows []results.Row) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := results.NewWriter(f, m, names)
	if err == nil {
		err = w.Write(rows)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}
