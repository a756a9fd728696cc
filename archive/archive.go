// Package archive makes and opens reproducible benchmark archives: one
// tar + zstd file holding a run (results, samples, meta.json, plan.tplan),
// every file its plan read, the variable values it was compiled with (the
// sensitive ones left out and named), the build of tressi that made it and
// the machine it ran on, and a SHA-256 manifest. Archiving a run twice gives
// byte-identical files: entries are sorted, times, owners and modes fixed,
// and the compressor runs with fixed settings on one goroutine.
package archive

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/version"
)

// Names inside an archive.
const (
	InfoFile      = "tressi-archive.json"
	VariablesFile = "variables.json"
	ManifestFile  = "MANIFEST.sha256"
	// RunDir holds the run directory's files; PlanDir the plan's sources.
	RunDir  = "run"
	PlanDir = "plan"
)

// Run directory files, as exec writes them.
const (
	resultsFile = "results.arrow"
	samplesFile = "samples.arrow"
	metaFile    = "meta.json"
	tplanFile   = "plan.tplan"
)

// Format is the archive layout's version, in InfoFile.
const Format = 1

// entryTime is every entry's modification time: fixed, so the same run
// archives to the same bytes whenever and wherever it is archived.
var entryTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Info is InfoFile: what the archive holds and what produced it.
type Info struct {
	Format int `json:"format"`
	// ArchivedBy is the tressi that wrote the archive.
	ArchivedBy version.Info `json:"archived_by"`
	Run        RunInfo      `json:"run"`
	Machine    Machine      `json:"machine"`
	Plan       PlanInfo     `json:"plan"`
}

// RunInfo identifies the run.
type RunInfo struct {
	// Tressi is the version of the tressi that ran it (results metadata).
	Tressi       string `json:"tressi_version"`
	RunID        string `json:"run_id"`
	PlanName     string `json:"plan_name"`
	ScheduleHash string `json:"schedule_hash"`
	Slots        int64  `json:"slots"`
	Shard        string `json:"shard"`
	StartUnixNs  int64  `json:"start_unix_ns"`
	ExitStatus   string `json:"exit_status,omitempty"`
}

// Machine is what bears on the numbers, from the run's meta.json.
type Machine struct {
	CPUs       int    `json:"cpus,omitempty"`
	GOMAXPROCS int    `json:"gomaxprocs,omitempty"`
	Kernel     string `json:"kernel,omitempty"`
	OS         string `json:"os,omitempty"`
	Arch       string `json:"arch,omitempty"`
	Go         string `json:"go,omitempty"`
	Engine     string `json:"engine,omitempty"`
	Hostname   string `json:"hostname,omitempty"`
}

// PlanInfo says where the plan's files are in the archive.
type PlanInfo struct {
	// Path is the plan file or directory, relative to PlanDir.
	Path string `json:"path"`
	// Sources maps each archived file (relative to PlanDir) to the name the
	// plan was loaded with.
	Sources map[string]string `json:"sources"`
}

// Variables is VariablesFile.
type Variables struct {
	// Values are the non-sensitive variables' values in go-cty's JSON form.
	Values map[string]compile.TPlanVariable `json:"values"`
	// Sensitive names the variables whose values were left out: verify and
	// apply ask for them with -var.
	Sensitive []string `json:"sensitive"`
}

// entry is one file of the archive, from memory or from disk.
type entry struct {
	name string
	data []byte
	path string
}

// Create writes the archive of the run directory dir to w. by is the tressi
// writing it.
func Create(w io.Writer, dir string, by version.Info) error {
	entries, err := collect(dir, by)
	if err != nil {
		return err
	}
	enc, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(true), zstd.WithWindowSize(1<<22))
	if err != nil {
		return err
	}
	tw := tar.NewWriter(enc)
	var manifest bytes.Buffer
	for _, e := range entries {
		sum, err := writeEntry(tw, e)
		if err != nil {
			enc.Close()
			return fmt.Errorf("archiving %s: %w", e.name, err)
		}
		fmt.Fprintf(&manifest, "%s  %s\n", sum, e.name)
	}
	if _, err := writeEntry(tw, entry{name: ManifestFile, data: manifest.Bytes()}); err != nil {
		enc.Close()
		return err
	}
	if err := tw.Close(); err != nil {
		enc.Close()
		return err
	}
	return enc.Close()
}

func writeEntry(tw *tar.Writer, e entry) (string, error) {
	var src io.Reader = bytes.NewReader(e.data)
	size := int64(len(e.data))
	if e.path != "" {
		f, err := os.Open(e.path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return "", err
		}
		src, size = f, st.Size()
	}
	hdr := &tar.Header{
		Typeflag: tar.TypeReg, Name: e.name, Size: size, Mode: 0o644,
		ModTime: entryTime, Format: tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tw, h), src)
	if err != nil {
		return "", err
	}
	if n != size {
		return "", fmt.Errorf("changed size while being archived (%d bytes, then %d)", size, n)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// collect gathers the archive's entries, sorted by name.
func collect(dir string, by version.Info) ([]entry, error) {
	resPath := filepath.Join(dir, resultsFile)
	r, err := results.Open(resPath)
	if err != nil {
		return nil, fmt.Errorf("%s holds no readable %s: pass a run directory written by tressi apply (%w)", dir, resultsFile, err)
	}
	meta := r.Meta
	if err := readWhole(r); err != nil {
		return nil, fmt.Errorf("%s: %w; an archive is made of a run that verifies (tressi verify %s says what else differs)", resPath, err, dir)
	}
	if _, _, err := readSamplesFile(filepath.Join(dir, samplesFile)); err != nil {
		return nil, fmt.Errorf("%s: %w; an archive is made of a run that verifies (tressi verify %s says what else differs)",
			filepath.Join(dir, samplesFile), err, dir)
	}
	tpPath := filepath.Join(dir, tplanFile)
	tf, err := os.Open(tpPath)
	if err != nil {
		return nil, fmt.Errorf("%s has no %s, so the plan's files are unknown: archive a run directory written by tressi apply (%w)", dir, tplanFile, err)
	}
	tp, err := compile.ReadTPlanInfo(tf)
	tf.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tpPath, err)
	}
	if tp.Hash != meta.ScheduleHash {
		return nil, fmt.Errorf("%s is schedule %s but %s was recorded from schedule %s: the run directory mixes two runs; put back the run's own plan.tplan",
			tpPath, tp.Hash, resPath, meta.ScheduleHash)
	}
	info := Info{
		Format: Format, ArchivedBy: by,
		Run: RunInfo{Tressi: meta.Version, RunID: meta.RunID, PlanName: meta.PlanName, ScheduleHash: meta.ScheduleHash,
			Slots: tp.Count, Shard: meta.Shard.String(), StartUnixNs: meta.StartUnixNs},
		Plan: PlanInfo{Sources: map[string]string{}},
	}
	var entries []entry
	for _, name := range []string{resultsFile, samplesFile, metaFile, tplanFile} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			entries = append(entries, entry{name: RunDir + "/" + name, path: p})
		} else if name == resultsFile || name == tplanFile {
			return nil, err
		}
	}
	if m, err := readRunMeta(filepath.Join(dir, metaFile)); err == nil {
		info.Machine = Machine{CPUs: m.CPUs, GOMAXPROCS: m.GOMAXPROCS, Kernel: m.Kernel, OS: m.OS, Arch: m.Arch,
			Go: m.Go, Engine: m.Engine, Hostname: m.Hostname}
		info.Run.ExitStatus = m.ExitStatus
	}
	mapped, planPath := relativeSources(tp.SourceNames(), tp.PlanPath)
	info.Plan.Path = planPath
	for orig, rel := range mapped {
		info.Plan.Sources[rel] = orig
		entries = append(entries, entry{name: PlanDir + "/" + rel, data: tp.Sources[orig]})
	}
	vars := Variables{Values: tp.Variables, Sensitive: tp.Sensitive}
	if vars.Values == nil {
		vars.Values = map[string]compile.TPlanVariable{}
	}
	if vars.Sensitive == nil {
		vars.Sensitive = []string{}
	}
	sort.Strings(vars.Sensitive)
	vj, err := json.MarshalIndent(vars, "", "  ")
	if err != nil {
		return nil, err
	}
	ij, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return nil, err
	}
	entries = append(entries, entry{name: VariablesFile, data: append(vj, '\n')}, entry{name: InfoFile, data: append(ij, '\n')})
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	return entries, nil
}

// readWhole reads every batch of r, so its checksums are checked, and
// closes it: nil when the whole file is there and undamaged.
func readWhole(r *results.Reader) error {
	defer r.Close()
	if err := r.Only(results.ColStatus); err != nil {
		return err
	}
	for {
		if _, ok := r.Next(); !ok {
			break
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return r.Truncated // a file cut short, or damaged after its last good batch
}

// runMeta is the part of meta.json an archive records.
type runMeta struct {
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Kernel     string `json:"kernel"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	Go         string `json:"go_version"`
	Engine     string `json:"engine"`
	Hostname   string `json:"hostname"`
	ExitStatus string `json:"exit_status"`
}

func readRunMeta(path string) (runMeta, error) {
	var m runMeta
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}
