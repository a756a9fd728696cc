package compile

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tressi/tressi/ipcguard"
	"github.com/tressi/tressi/results"
)

// TPlanInfo is a .tplan's header without its slots: what a report, an
// archive or a check of a run directory needs to know about the schedule,
// read in the time it takes to read one message.
type TPlanInfo struct {
	Name      string
	Hash      string
	Seed      uint64
	Model     string
	Count     int64
	Duration  time.Duration
	PlanPath  string
	Sources   map[string][]byte
	Variables map[string]TPlanVariable
	// Sensitive names the variables whose values were left out.
	Sensitive  []string
	Thresholds results.Thresholds
}

// SourceNames lists the plan's source files in sorted order.
func (t *TPlanInfo) SourceNames() []string {
	names := make([]string, 0, len(t.Sources))
	for n := range t.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ReadTPlanInfo reads a .tplan's header only; it does not check the slots
// (ReadTPlan does). A format-2 file keeps its plan's sources and data rows
// after the slots (tplan_blobs.go): they are read too, which needs r to
// seek.
func ReadTPlanInfo(r io.ReadSeeker) (info TPlanInfo, err error) {
	defer ipcguard.Recover(&err)
	stream, err := ipcguard.Stream(r)
	if err != nil {
		return info, fmt.Errorf("tplan: %w", err)
	}
	rd, err := ipc.NewReader(stream, ipc.WithAllocator(ipcguard.Allocator))
	if err != nil {
		return info, fmt.Errorf("tplan: %w", err)
	}
	defer rd.Release()
	h, err := decodeTPlanHeader(rd.Schema())
	if err != nil {
		return info, err
	}
	if h.Blobs {
		size, err := r.Seek(0, io.SeekEnd)
		if err != nil {
			return info, fmt.Errorf("tplan: %w", err)
		}
		if err := readBlobs(r, size, h, memory.NewGoAllocator()); err != nil {
			return info, err
		}
	}
	return TPlanInfo{
		Name: h.Name, Hash: h.Hash, Seed: h.Seed, Model: h.Model, Count: h.Count,
		Duration: time.Duration(h.DurationNS), PlanPath: h.PlanPath, Sources: h.Sources,
		Variables: h.Variables, Sensitive: h.Sensitive, Thresholds: fromWireThresholds(h.Thresholds),
	}, nil
}
