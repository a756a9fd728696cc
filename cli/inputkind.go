package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/ipcguard"
	"github.com/tressi/tressi/results"
)

// inputKind is what a file given where a plan is expected turned out to be.
// Handing a .tplan or a results file to the HCL parser printed thousands of
// "Invalid character" errors and megabytes of binary; naming the file's kind
// in one line tells the user which command reads it.
type inputKind int

const (
	inputPlan    inputKind = iota // text: HCL or JSON, for the plan parser
	inputTPlan                    // a compiled schedule
	inputResults                  // a run's results.arrow
	inputSamples                  // a run's samples.arrow
	inputArrow                    // some other Arrow IPC data
	inputBinary                   // anything else that is not text
)

// sniffLen is how much of a file is looked at to tell text from binary.
const sniffLen = 64 << 10

// sniffInput tells what the file at path is. Directories, missing files and
// text files are inputPlan: the plan loader has the right words for those.
func sniffInput(path string) inputKind {
	f, err := os.Open(path)
	if err != nil {
		return inputPlan
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return inputPlan
	}
	head := make([]byte, sniffLen)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if isArrowIPC(head) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return inputArrow
		}
		return arrowKind(f)
	}
	if bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(trimPartialRune(head)) {
		return inputBinary
	}
	return inputPlan
}

// isArrowIPC recognises the Arrow IPC file magic or a stream's first
// message (the continuation marker 0xFFFFFFFF).
func isArrowIPC(head []byte) bool {
	return bytes.HasPrefix(head, []byte("ARROW1")) || bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff})
}

// arrowKind reads only the schema and tells tressi's three Arrow files apart
// by their columns and metadata.
func arrowKind(r io.Reader) (kind inputKind) {
	var magic [8]byte
	if _, err := io.ReadFull(r, magic[:6]); err != nil {
		return inputArrow
	}
	if string(magic[:6]) == "ARROW1" {
		if _, err := io.ReadFull(r, magic[6:8]); err != nil { // padding to 8
			return inputArrow
		}
	} else {
		r = io.MultiReader(bytes.NewReader(magic[:6]), r)
	}
	var err error
	defer ipcguard.Recover(&err)
	sr, err := ipcguard.Stream(r)
	if err != nil {
		return inputArrow
	}
	rd, err := ipc.NewReader(sr)
	if err != nil {
		return inputArrow
	}
	defer rd.Release()
	s := rd.Schema()
	switch {
	case s.Metadata().FindKey(compile.TPlanMetadataKey) >= 0:
		return inputTPlan
	case s.Metadata().FindKey(results.KeyScheduleHash) >= 0 || hasFields(s, results.ColSlot, results.ColScheduled, results.ColLatency) ||
		hasFields(s, results.ColSlotDelta, results.ColScheduledDelta, results.ColLatency):
		return inputResults
	case hasFields(s, "endpoint", "status", "body"):
		return inputSamples
	}
	return inputArrow
}

func hasFields(s *arrow.Schema, names ...string) bool {
	for _, n := range names {
		if !s.HasField(n) {
			return false
		}
	}
	return true
}

// trimPartialRune drops a UTF-8 sequence cut off at the end of the sniffed
// prefix, so a long text file is not mistaken for binary.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// notAPlan says in one line what the file at path is and which command
// reads it; "" when it is text for the plan parser.
func notAPlan(path string, kind inputKind) string {
	dir := filepath.Dir(path)
	switch kind {
	case inputTPlan:
		return fmt.Sprintf("%s is a compiled schedule (.tplan), not a plan source: `tressi plan %s` summarises it, `tressi apply %s` runs it", path, path, path)
	case inputResults:
		return fmt.Sprintf("%s is a tressi results file (Arrow IPC), not a plan: `tressi report %s` summarises the run", path, dir)
	case inputSamples:
		return fmt.Sprintf("%s is a tressi samples file (Arrow IPC), not a plan: `tressi report %s` shows its sampled responses", path, dir)
	case inputArrow:
		return fmt.Sprintf("%s is Arrow IPC data, not a plan: a plan is HCL text (*.hcl) or its JSON form (*.hcl.json)", path)
	case inputBinary:
		return fmt.Sprintf("%s is a binary file, not a plan: a plan is HCL text (*.hcl) or its JSON form (*.hcl.json)", path)
	}
	return ""
}

// notResults says in one line what a file given to `tressi report` is when
// it is not a results file; "" for results (or a directory, or other Arrow
// data, which the results reader judges with its own words).
func notResults(path string) string {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	switch sniffInput(path) {
	case inputTPlan:
		return fmt.Sprintf("%s is a compiled schedule (.tplan), not results: `tressi plan %s` summarises it, `tressi apply %s` runs it", path, path, path)
	case inputSamples:
		return fmt.Sprintf("%s holds a run's sampled responses, not its results: `tressi report %s` reads both", path, filepath.Dir(path))
	case inputPlan:
		return fmt.Sprintf("%s is text, not a results file: `tressi apply %s` runs a plan, and `tressi report` reads the run directory it writes", path, path)
	case inputBinary:
		return fmt.Sprintf("%s is not a results file (tressi's results are Arrow IPC, results.arrow in a run directory)", path)
	}
	return ""
}
