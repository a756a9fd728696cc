package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/tressi/tressi/report"
	"github.com/tressi/tressi/results"
)

// failingServer answers 500 to the requests whose X-Slot header (the
// plan sends ${seq}) is in the set fail holds, 200 to the rest.
func failingServer(t *testing.T) (url string, fail func(slots ...int)) {
	t.Helper()
	var mu sync.Mutex
	failing := map[int]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		slot, _ := strconv.Atoi(r.Header.Get("X-Slot"))
		mu.Lock()
		bad := failing[slot]
		mu.Unlock()
		if bad {
			w.WriteHeader(http.StatusInternalServerError)
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func(slots ...int) {
		mu.Lock()
		defer mu.Unlock()
		clear(failing)
		for _, s := range slots {
			failing[s] = true
		}
	}
}

// archivePlan writes a plan that reads a CSV file and a file() input and
// uses a variable in every request, so each of them is in the schedule.
func archivePlan(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shop")
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	files := map[string]string{
		"shop.hcl": `
variable "base_url" { type = string }
variable "tag" {
  type    = string
  default = "a"
}
data "users" { csv = "data/users.csv" }
target "t" {
  url         = var.base_url
  connections = 8
  timeout     = "2s"
}
scenario "buy" {
  step "get" {
    method  = "POST"
    path    = "/u/${row.name}"
    headers = { "X-Slot" = "${seq}", "X-Tag" = var.tag }
    body    = file("body.txt")
  }
}
load {
  seed = 7
  stage {
    duration = "1s"
    rate     = 50
  }
}
`,
		"data/users.csv": "name\nann\nbob\ncyd\n",
		"body.txt":       "hello\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "shop.hcl")
}

func mustRun(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	code, out, errs := run(t, nil, args...)
	if code != want {
		t.Fatalf("tressi %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errs)
	}
	return out, errs
}

// repack copies an archive, changing each entry's bytes with edit (the
// manifest is copied as it is, so it no longer matches what changed).
func repack(t *testing.T, src, dst string, edit func(name string, data []byte) []byte) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var buf bytes.Buffer
	enc, _ := zstd.NewWriter(&buf)
	tr, tw := tar.NewReader(dec), tar.NewWriter(enc)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		data = edit(hdr.Name, data)
		hdr.Size = int64(len(data))
		tw.WriteHeader(hdr)
		tw.Write(data)
	}
	tw.Close()
	enc.Close()
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func reportJSON(t *testing.T, path string) report.Report {
	t.Helper()
	out, _ := mustRun(t, 0, "report", path, "--format", "json")
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report json: %v\n%s", err, out)
	}
	return rep
}

// TestArchiveVerifyReplayDiff walks the whole story on real runs
// against a loopback server.
func TestArchiveVerifyReplayDiff(t *testing.T) {
	url, fail := failingServer(t)
	planPath := archivePlan(t)
	work := t.TempDir()
	runA, runB := filepath.Join(work, "a"), filepath.Join(work, "b")
	mustRun(t, 0, "apply", planPath, "-var", "base_url="+url, "--out", runA, "--quiet")
	failed := []int{3, 17, 42}
	fail(failed...)
	mustRun(t, 0, "apply", planPath, "-var", "base_url="+url, "--out", runB, "--quiet")
	fail()

	// Two archives of one run are byte-identical.
	arc1, arc2 := filepath.Join(work, "a1.tar.zst"), filepath.Join(work, "a2.tar.zst")
	mustRun(t, 0, "archive", runA, "-o", arc1)
	mustRun(t, 0, "archive", runA, "-o", arc2)
	b1, _ := os.ReadFile(arc1)
	b2, _ := os.ReadFile(arc2)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("two archives of one run differ (%d and %d bytes)", len(b1), len(b2))
	}

	out, _ := mustRun(t, 0, "verify", arc1)
	if !strings.Contains(out, "is verified") || strings.Contains(out, "FAIL") || strings.Contains(out, "warning") {
		t.Fatalf("verify of a fresh archive:\n%s", out)
	}
	mustRun(t, 0, "verify", runA)

	cases := []struct {
		name, file string
		edit       func(name string, data []byte) []byte
	}{
		{"flipped byte in results", "run/results.arrow", func(name string, data []byte) []byte {
			if name == "run/results.arrow" {
				data = bytes.Clone(data)
				data[len(data)/2] ^= 0x10
			}
			return data
		}},
		{"changed CSV row", "plan/shop/data/users.csv", func(name string, data []byte) []byte {
			if strings.HasSuffix(name, "users.csv") {
				return bytes.Replace(data, []byte("bob"), []byte("bub"), 1)
			}
			return data
		}},
		{"changed variable", "variables.json", func(name string, data []byte) []byte {
			if name == "variables.json" {
				return bytes.Replace(data, []byte(`"value": "a"`), []byte(`"value": "b"`), 1)
			}
			return data
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.tar.zst")
			repack(t, arc1, bad, c.edit)
			out, _ := mustRun(t, 1, "verify", bad)
			if !strings.Contains(out, "FAIL    "+c.file+":") || !strings.Contains(out, "NOT verified") {
				t.Fatalf("verify does not name %s:\n%s", c.file, out)
			}
		})
	}

	t.Run("different tressi version warns", func(t *testing.T) {
		defer func(v string) { Version = v }(Version)
		Version = "v99.0.0"
		out, _ := mustRun(t, 0, "verify", arc1)
		if !strings.Contains(out, "warning tressi version:") {
			t.Fatalf("no version warning:\n%s", out)
		}
	})

	// Replaying the archive gives the same schedule and as many rows.
	repA := reportJSON(t, runA)
	runC := filepath.Join(work, "c")
	mustRun(t, 0, "apply", arc1, "--out", runC, "--quiet")
	repC := reportJSON(t, runC)
	if repC.Run.ScheduleHash != repA.Run.ScheduleHash || repC.Requests != repA.Requests || repA.Requests != 50 {
		t.Fatalf("replay: hash %s, %d rows; original %s, %d rows", repC.Run.ScheduleHash, repC.Requests, repA.Run.ScheduleHash, repA.Requests)
	}
	if got := reportJSON(t, arc1); got.Requests != repA.Requests {
		t.Fatalf("report of the archive: %d rows, want %d", got.Requests, repA.Requests)
	}
	out, _ = mustRun(t, 0, "plan", filepath.Join(runA, "plan.tplan"))
	if !strings.Contains(out, repA.Run.ScheduleHash) || !strings.Contains(out, "data/users.csv") {
		t.Fatalf("plan of a .tplan:\n%s", out)
	}

	// diff names exactly the slots the server failed, archive or run.
	out, _ = mustRun(t, 0, "diff", arc1, runB, "--format", "json")
	var d report.Diff
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if !d.SameSchedule || d.NewlyFailedSlots != int64(len(failed)) || d.NewlyOKSlots != 0 || len(d.NewlyFailed) != 1 {
		t.Fatalf("diff: %+v", d)
	}
	g := d.NewlyFailed[0]
	var slots []int
	for _, s := range g.First {
		slots = append(slots, int(s.Slot))
		if s.DueMs == nil {
			t.Errorf("slot %d has no due time", s.Slot)
		}
	}
	if g.Endpoint != "buy.get" || g.Kind != "status 500" || len(slots) != 3 || slots[0] != 3 || slots[1] != 17 || slots[2] != 42 {
		t.Fatalf("diff names %s %s %v, want buy.get status 500 %v", g.Endpoint, g.Kind, slots, failed)
	}
	if len(g.List) != 3 || g.List[0] != 3 || g.List[1] != 17 || g.List[2] != 42 {
		t.Fatalf("diff lists %v, want %v", g.List, failed)
	}
	// The reverse diff has them as fixed; the gate trips on the error rate.
	out, _ = mustRun(t, 2, "diff", runA, runB, "--fail-on", "error_rate>+0.5pp", "--fail-on", "throughput<-50%")
	if !strings.Contains(out, "FAIL  error_rate>+0.5pp") || !strings.Contains(out, "pass  throughput<-50%") {
		t.Fatalf("gates:\n%s", out)
	}
	out, _ = mustRun(t, 0, "diff", runB, runA, "--format", "md")
	if !strings.Contains(out, "### Failed in A, ok in B: 3 slots") {
		t.Fatalf("reverse diff:\n%s", out)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	os.MkdirAll(dst, 0o755)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
	}
}

// TestSwappedPlanAndDamagedBatchAreNoticed: report, verify and diff all
// notice a plan.tplan from another schedule and a changed results batch,
// and archive refuses both, and a results file cut short.
func TestSwappedPlanAndDamagedBatchAreNoticed(t *testing.T) {
	url, _ := failingServer(t)
	planPath := archivePlan(t)
	work := t.TempDir()
	runA, runZ := filepath.Join(work, "a"), filepath.Join(work, "z")
	mustRun(t, 0, "apply", planPath, "-var", "base_url="+url, "--out", runA, "--quiet")
	mustRun(t, 0, "apply", planPath, "-var", "base_url="+url, "-var", "tag=z", "--out", runZ, "--quiet")

	swapped := filepath.Join(work, "swapped")
	copyDir(t, runA, swapped)
	b, _ := os.ReadFile(filepath.Join(runZ, "plan.tplan"))
	os.WriteFile(filepath.Join(swapped, "plan.tplan"), b, 0o644)
	_, errs := mustRun(t, 0, "report", swapped)
	if !strings.Contains(errs, "plan.tplan is schedule") || !strings.Contains(errs, "not theirs") {
		t.Fatalf("report of a swapped plan says:\n%s", errs)
	}
	out, _ := mustRun(t, 1, "verify", swapped)
	if !strings.Contains(out, "FAIL    plan.tplan: is schedule") {
		t.Fatalf("verify of a swapped plan:\n%s", out)
	}
	_, errs = mustRun(t, 0, "diff", runA, swapped)
	if !strings.Contains(errs, "not theirs") {
		t.Fatalf("diff of a swapped plan says:\n%s", errs)
	}
	if code, _, errs := run(t, nil, "archive", swapped, "-o", filepath.Join(work, "x.tar.zst")); code != 1 || !strings.Contains(errs, "mixes two runs") {
		t.Fatalf("archive of a swapped plan: exit %d\n%s", code, errs)
	}

	// Two chosen bytes, not one at a distance from the end: where that
	// lands depends on how many rows the last batch holds, which depends
	// on timing. The last byte before the end-of-stream marker is the last
	// batch's body (its padding: covered like the rest), so every batch
	// before it reads; the run id lies in the schema's metadata, which no
	// checksum covered before the stream checksum, so report and verify
	// read a run id that was never written without a word.
	data, _ := os.ReadFile(filepath.Join(runA, "results.arrow"))
	var meta struct {
		RunID string `json:"run_id"`
	}
	mj, _ := os.ReadFile(filepath.Join(runA, "meta.json"))
	if err := json.Unmarshal(mj, &meta); err != nil || meta.RunID == "" || !bytes.Contains(data, []byte(meta.RunID)) {
		t.Fatalf("run id %q of meta.json not in results.arrow (%v)", meta.RunID, err)
	}
	for _, c := range []struct {
		what string
		at   int
	}{
		{"the last batch's last byte", len(data) - 9},
		{"the run id", bytes.Index(data, []byte(meta.RunID)) + 3},
	} {
		damaged := filepath.Join(work, "damaged")
		os.RemoveAll(damaged)
		copyDir(t, runA, damaged)
		bad := bytes.Clone(data)
		bad[c.at] ^= 0x01
		os.WriteFile(filepath.Join(damaged, "results.arrow"), bad, 0o644)
		_, errs = mustRun(t, 0, "report", damaged)
		if !strings.Contains(errs, "damaged") {
			t.Fatalf("report of a flip in %s says:\n%s", c.what, errs)
		}
		out, _ = mustRun(t, 1, "verify", damaged)
		if !strings.Contains(out, "FAIL    results.arrow: results damaged") {
			t.Fatalf("verify of a flip in %s:\n%s", c.what, out)
		}
		arc := filepath.Join(work, "damaged.tar.zst")
		if code, _, errs := run(t, nil, "archive", damaged, "-o", arc); code != 1 || !strings.Contains(errs, "damaged") ||
			!strings.Contains(errs, "tressi verify") {
			t.Fatalf("archive of a flip in %s: exit %d\n%s", c.what, code, errs)
		}
		if _, err := os.Stat(arc); err == nil {
			t.Fatalf("archive of a flip in %s left %s behind", c.what, arc)
		}
	}

	// A damaged samples.arrow: report warns and leaves the samples out,
	// verify fails naming it, archive refuses the run.
	smp, _ := os.ReadFile(filepath.Join(runA, "samples.arrow"))
	var badSamples []byte
	for i := len(smp) / 2; i < len(smp) && badSamples == nil; i++ {
		b := bytes.Clone(smp)
		b[i] ^= 0x01
		if _, err := results.ReadSamples(bytes.NewReader(b)); err != nil {
			badSamples = b
		}
	}
	if badSamples == nil {
		t.Fatal("no flip in the second half of samples.arrow is noticed")
	}
	damagedSamples := filepath.Join(work, "damaged-samples")
	copyDir(t, runA, damagedSamples)
	os.WriteFile(filepath.Join(damagedSamples, "samples.arrow"), badSamples, 0o644)
	if _, errs := mustRun(t, 0, "report", damagedSamples); !strings.Contains(errs, "samples") {
		t.Fatalf("report of damaged samples says:\n%s", errs)
	}
	if out, _ := mustRun(t, 1, "verify", damagedSamples); !strings.Contains(out, "FAIL    samples.arrow:") {
		t.Fatalf("verify of damaged samples:\n%s", out)
	}
	if code, _, errs := run(t, nil, "archive", damagedSamples, "-o", filepath.Join(work, "ds.tar.zst")); code != 1 || !strings.Contains(errs, "samples.arrow") {
		t.Fatalf("archive of damaged samples: exit %d\n%s", code, errs)
	}
	if out, _ := mustRun(t, 0, "verify", runA); !strings.Contains(out, "ok      samples.arrow:") {
		t.Fatalf("verify of the undamaged run does not check its samples:\n%s", out)
	}

	// A results file cut short (the run was killed while writing) is not
	// archived either.
	cut := filepath.Join(work, "cut")
	copyDir(t, runA, cut)
	os.WriteFile(filepath.Join(cut, "results.arrow"), data[:len(data)-100], 0o644)
	if code, _, errs := run(t, nil, "archive", cut, "-o", filepath.Join(work, "cut.tar.zst")); code != 1 || !strings.Contains(errs, "cut short") {
		t.Fatalf("archive of a cut results file: exit %d\n%s", code, errs)
	}
}

// TestVerifyAsksForSensitiveVariables: an archive leaves sensitive values
// out and names them; verify asks for them and passes once given.
func TestVerifyAsksForSensitiveVariables(t *testing.T) {
	url, _ := failingServer(t)
	planPath := archivePlan(t)
	src, _ := os.ReadFile(planPath)
	src = bytes.Replace(src, []byte(`variable "tag" {`), []byte("variable \"tag\" {\n  sensitive = true"), 1)
	os.WriteFile(planPath, src, 0o644)
	work := t.TempDir()
	runA, arc := filepath.Join(work, "a"), filepath.Join(work, "a.tar.zst")
	mustRun(t, 0, "apply", planPath, "-var", "base_url="+url, "-var", "tag=s3cret", "--out", runA, "--quiet")
	mustRun(t, 0, "archive", runA, "-o", arc)
	raw, _ := os.ReadFile(arc)
	var all bytes.Buffer
	repack(t, arc, filepath.Join(work, "copy.tar.zst"), func(name string, data []byte) []byte {
		if name != "run/plan.tplan" && name != "run/results.arrow" {
			all.Write(data)
		}
		return data
	})
	if bytes.Contains(all.Bytes(), []byte("s3cret")) || bytes.Contains(raw, []byte("s3cret")) {
		t.Fatal("the archive holds the sensitive value")
	}
	if !strings.Contains(all.String(), `"sensitive": [`+"\n"+`    "tag"`) {
		t.Fatalf("variables.json does not name the sensitive variable:\n%s", all.String())
	}
	out, _ := mustRun(t, 1, "verify", arc)
	if !strings.Contains(out, "sensitive variables tag") || !strings.Contains(out, "-var") {
		t.Fatalf("verify without the secret:\n%s", out)
	}
	out, _ = mustRun(t, 1, "verify", arc, "-var", "tag=wrong")
	if !strings.Contains(out, "compiles to schedule") {
		t.Fatalf("verify with a wrong secret:\n%s", out)
	}
	mustRun(t, 0, "verify", arc, "-var", "tag=s3cret")
}

// TestVerifyClosedModel: a closed-model run has as many slots as its users
// managed to send; verify checks they are neither repeated nor missing.
func TestVerifyClosedModel(t *testing.T) {
	url, _ := failingServer(t)
	dir := t.TempDir()
	planPath := filepath.Join(dir, "closed.hcl")
	os.WriteFile(planPath, []byte(`
target "t" {
  url         = "`+url+`"
  connections = 2
}
endpoint "home" { path = "/" }
load {
  model = "closed"
  stage {
    duration = "300ms"
    users    = 2
  }
}
`), 0o644)
	run := filepath.Join(dir, "run")
	mustRun(t, 0, "apply", planPath, "--out", run, "--quiet")
	out, _ := mustRun(t, 0, "verify", run)
	if !strings.Contains(out, "closed model:") || !strings.Contains(out, "none repeated, no gap") {
		t.Fatalf("verify of a closed-model run:\n%s", out)
	}
}

// TestVerifyDataPathOutsideThePlan: a variable names the CSV by an
// absolute path outside the plan's directory. The run embeds the file and
// the archive keeps it under a relative name; verify reads it from there
// (never from the disk, where it may be gone or changed), for the run and
// for its archive, and still notices a changed row.
func TestVerifyDataPathOutsideThePlan(t *testing.T) {
	url, _ := failingServer(t)
	work := t.TempDir()
	planDir, dataDir := filepath.Join(work, "plan"), filepath.Join(work, "elsewhere")
	os.MkdirAll(planDir, 0o755)
	os.MkdirAll(dataDir, 0o755)
	csv := filepath.Join(dataDir, "users.csv")
	os.WriteFile(csv, []byte("name\nann\nbob\n"), 0o644)
	os.WriteFile(filepath.Join(planDir, "p.hcl"), []byte(`
variable "base_url" { type = string }
variable "accounts" { type = string }
data "users" { csv = var.accounts }
target "t" { url = var.base_url }
endpoint "u" { path = "/u/${row.name}" }
load {
  stage {
    duration = "200ms"
    rate     = 20
  }
}
`), 0o644)
	run, arc := filepath.Join(work, "run"), filepath.Join(work, "run.tar.zst")
	mustRun(t, 0, "apply", filepath.Join(planDir, "p.hcl"), "-var", "base_url="+url, "-var", "accounts="+csv, "--out", run, "--quiet")
	mustRun(t, 0, "archive", run, "-o", arc)
	os.WriteFile(csv, []byte("name\nzed\n"), 0o644) // the disk's copy changes: verify must not read it
	mustRun(t, 0, "verify", run)
	mustRun(t, 0, "verify", arc)
	changed := filepath.Join(work, "changed.tar.zst")
	repack(t, arc, changed, func(name string, data []byte) []byte {
		if strings.HasSuffix(name, "users.csv") {
			return bytes.Replace(data, []byte("bob"), []byte("bib"), 1)
		}
		return data
	})
	if out, _ := mustRun(t, 1, "verify", changed); !strings.Contains(out, "users.csv") {
		t.Fatalf("verify of an archive whose CSV changed does not name it:\n%s", out)
	}
}
