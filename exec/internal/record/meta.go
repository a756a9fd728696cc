package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/results"
)

// Meta is meta.json: the environment a run happened in, so a run directory
// is a benchmark archive that says what produced its numbers.
type Meta struct {
	Tressi string `json:"tressi_version"`
	Go     string `json:"go_version"`
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	CPUs   int    `json:"cpus"`
	// GOMAXPROCS is the Go scheduler's processors for the run: with CPUs,
	// what an archive records as the machine the numbers came from.
	GOMAXPROCS int    `json:"gomaxprocs"`
	Kernel     string `json:"kernel,omitempty"`
	Hostname   string `json:"hostname,omitempty"`
	// PID is the process that runs (ran) the run: with Hostname, the report
	// tells a run still in progress from one killed or crashed.
	PID    int    `json:"pid,omitempty"`
	RunID  string `json:"run_id"`
	Plan   string `json:"plan_name"`
	Hash   string `json:"schedule_hash"`
	Shard  string `json:"shard"`
	Engine string `json:"engine"`
	// Protocols: by target, how many connections spoke each protocol
	// ("http/1.1", "h2", "h2c"); the loop engine's count.
	Protocols map[string]map[string]int64 `json:"protocols,omitempty"`
	// IOUringConns: how many of the loop's connections sent and received
	// through io_uring; the rest were on epoll.
	IOUringConns int64     `json:"io_uring_connections,omitempty"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	CommandLine  string    `json:"command_line,omitempty"`
	ExitStatus   string    `json:"exit_status"` // running (until the end), ok, thresholds_failed, early_exit, overran, interrupted, error, late_start
	Requests     int64     `json:"requests"`
	Sent         int64     `json:"sent"`
	OK           int64     `json:"ok"`
	Thresholds   []string  `json:"threshold_failures,omitempty"`
	TLS          *MetaTLS  `json:"tls,omitempty"`
	// Warmup: the connections the loop engine opened before instant zero,
	// and how long that took (the run's clock starts after it).
	Warmup *Warmup `json:"warmup,omitempty"`
	// ConnectionWaits counts the requests that waited for a connection
	// because every one of their target's connections was busy (the loop
	// engine): sent late by the plan's connections, not by a slow
	// generator. The report tells the two apart with it.
	ConnectionWaits int64 `json:"connection_waits,omitempty"`
	// Redirects counts, by endpoint, the redirects its requests followed
	// (redirects = N): each hop is a request the server saw beyond the
	// endpoint's one row per chain. Absent when none was followed.
	Redirects map[string]int64 `json:"redirects,omitempty"`
	// GRPCStreams: by the step that opens them, the gRPC streams' calls,
	// messages sent, replies received and replies no await took.
	GRPCStreams map[string]StreamFigures `json:"grpc_streams,omitempty"`
	// Checks counts each check block's runs and failures, per endpoint
	// (in the plan's order); absent from runs without checks.
	Checks []results.CheckTally `json:"checks,omitempty"`

	// FirstSend is when the first request went out, and FirstSendSkewMs how
	// far that was from its due instant: how this shard's start lined up
	// with the schedule it shares with the others (Start is instant zero).
	FirstSend       *time.Time `json:"first_send,omitempty"`
	FirstSendSkewMs *float64   `json:"first_send_skew_ms,omitempty"`
	StartTolerance  string     `json:"start_tolerance,omitempty"`
}

// StreamFigures are one gRPC stream's counts over a run.
type StreamFigures struct {
	Calls     int64 `json:"calls"`
	Sent      int64 `json:"sent"`
	Received  int64 `json:"received"`
	Unmatched int64 `json:"unmatched"`
}

// MetaTLS is what meta.json says of a run's TLS: how many handshakes, how
// many of them resumed an earlier session, and which targets were not
// verified.
type MetaTLS struct {
	Handshakes int64 `json:"handshakes"`
	Resumed    int64 `json:"resumed"`
	// InsecureSkipVerify names the targets whose certificates were not
	// checked (tls { insecure_skip_verify = true }).
	InsecureSkipVerify []string `json:"insecure_skip_verify,omitempty"`
}

func NewMeta(version, commandLine string) Meta {
	host, _ := os.Hostname()
	return Meta{
		Tressi: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Kernel: sys.KernelVersion(), Hostname: host, PID: os.Getpid(), CommandLine: commandLine,
	}
}

// StatusRunning is meta.json's exit status while the run goes on.
const StatusRunning = "running"

// Write replaces meta.json atomically (a temporary file, synced, then
// renamed): a full disk or a crash leaves the previous meta.json whole,
// never one cut short.
func (m *Meta) Write(dir string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, MetaFile), append(b, '\n'))
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Warmup is what meta.json says of a warm-up.
type Warmup struct {
	Connections int64   `json:"connections"` // opened and ready at instant zero
	Ms          float64 `json:"ms"`          // how long it took
}
