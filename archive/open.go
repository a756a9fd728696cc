package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}

// IsArchive says whether path is a file that starts like an archive (a
// zstd frame), as opposed to a run directory or a results file.
func IsArchive(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [4]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return false
	}
	return bytes.Equal(head[:], zstdMagic)
}

// Opened is an archive unpacked into a directory.
type Opened struct {
	// Dir holds the unpacked files; RunDir is its run directory.
	Dir    string
	RunDir string
	Info   Info
	Vars   Variables
	// Problems lists, file by file, what does not match the manifest: a
	// file changed, missing, or not in the manifest.
	Problems []string
}

// maxEntry bounds one unpacked file: far above any run's results.
const maxEntry = 64 << 30

// Open unpacks the archive at path into dir (which must exist and be
// empty or new) and checks every file against the manifest.
func Open(path, dir string) (*Opened, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec, err := zstd.NewReader(bufio.NewReaderSize(f, 1<<20), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	tr := tar.NewReader(dec)
	sums := map[string]string{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s is not a tressi archive or is damaged: %w", path, err)
		}
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		if hdr.Typeflag != tar.TypeReg || !fs.ValidPath(hdr.Name) || hdr.Size > maxEntry {
			return nil, fmt.Errorf("%s: entry %q is not a plain file with a relative path: not an archive tressi wrote", path, hdr.Name)
		}
		if _, dup := sums[hdr.Name]; dup {
			return nil, fmt.Errorf("%s: entry %q appears twice: not an archive tressi wrote", path, hdr.Name)
		}
		sum, err := unpack(tr, filepath.Join(dir, filepath.FromSlash(hdr.Name)))
		if err != nil {
			return nil, fmt.Errorf("%s: unpacking %s: %w", path, hdr.Name, err)
		}
		sums[hdr.Name] = sum
	}
	o := &Opened{Dir: dir, RunDir: filepath.Join(dir, RunDir)}
	if _, ok := sums[InfoFile]; !ok {
		return nil, fmt.Errorf("%s has no %s: not an archive made by tressi archive", path, InfoFile)
	}
	if err := readJSON(filepath.Join(dir, InfoFile), &o.Info); err != nil {
		return nil, err
	}
	if o.Info.Format != Format {
		return nil, fmt.Errorf("%s is archive format %d; this tressi reads format %d", path, o.Info.Format, Format)
	}
	if err := readJSON(filepath.Join(dir, VariablesFile), &o.Vars); err != nil {
		o.Problems = append(o.Problems, err.Error())
	}
	o.Problems = append(o.Problems, checkManifest(dir, sums)...)
	return o, nil
}

func unpack(r io.Reader, dst string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, h), r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return hex.EncodeToString(h.Sum(nil)), err
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s is not valid JSON: %v", filepath.Base(path), err)
	}
	return nil
}

// checkManifest compares what was unpacked with MANIFEST.sha256, naming
// each file that differs.
func checkManifest(dir string, sums map[string]string) []string {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return []string{fmt.Sprintf("%s is missing: no file can be checked", ManifestFile)}
	}
	want := map[string]string{}
	var problems []string
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 {
			problems = append(problems, fmt.Sprintf("%s line %d is not \"<sha256>  <file>\"", ManifestFile, i+1))
			continue
		}
		want[name] = sum
	}
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == ManifestFile {
			continue
		}
		w, ok := want[n]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: not in %s (added after archiving)", n, ManifestFile))
		case w != sums[n]:
			problems = append(problems, fmt.Sprintf("%s: SHA-256 %s…, %s says %s… (changed after archiving)", n, prefix(sums[n]), ManifestFile, prefix(w)))
		}
	}
	var missing []string
	for n := range want {
		if _, ok := sums[n]; !ok {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	for _, n := range missing {
		problems = append(problems, fmt.Sprintf("%s: in %s but missing from the archive", n, ManifestFile))
	}
	return problems
}

func prefix(sum string) string { return sum[:min(len(sum), 12)] }
