package exec

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tressi/tressi/results"
)

// recorder is the single goroutine that owns the results writer: workers
// hand it full row buffers over a channel and get emptied ones back, so
// rows are never allocated per request. It also keeps the run's totals and
// the corrected-latency histogram the end-of-run thresholds read.
type recorder struct {
	w       *results.Writer
	in      chan []results.Row
	free    chan []results.Row
	samples chan results.Sample
	rowsCap int
	done    chan struct{}
	// background: run at idle priority on a thread of its own (the loop
	// engine keeps a P free for it).
	background bool
	err        error
	// failed is closed when writing first fails: the run stops then.
	failed chan struct{}
	// observe sees every row taken (Options.Observe); nil: none.
	observe func(row *results.Row, ok bool)

	batch []results.Row
	// Everything below is the recorder goroutine's until done is closed.
	totals  totals
	latency *results.LatencyHistogram // corrected latency of every response: what the verdict reads
	window  *hdrhistogram.Histogram   // the same over the last second, for progress
	kept    []results.Sample

	// Live figures for progress, published once per window.
	p50, p99 atomic.Int64
	// live is the corrected latency over the live thresholds' window; nil
	// when the plan judges no latency live.
	live *liveLatency
	// lag is the largest send lag (sent − scheduled) of the last window:
	// how far the generator is behind its schedule.
	lag       atomic.Int64
	windowLag int64
}

// totals count the rows of a run.
type totals struct {
	Requests int64 // rows: every slot of the shard
	Sent     int64 // rows with sent_ns >= 0
	OK       int64 // a response with an expected status and no error
	// Counted in arrays, not maps: this runs for every row. Statuses of
	// 1000 and above (no real server sends them) go to bigStatus.
	Errors    [len(results.ErrorNames)]int64
	Status    [1000]int64
	bigStatus map[uint16]int64
	first     firstSend
}

// errorKinds is Errors by word, for the outcome.
func (t *totals) errorKinds() map[string]int64 {
	m := map[string]int64{}
	for k, n := range t.Errors {
		if k != int(results.None) && n > 0 {
			m[results.ErrorNames[k]] = n
		}
	}
	return m
}

// statuses is Status by code, for the outcome.
func (t *totals) statuses() map[uint16]int64 {
	m := map[uint16]int64{}
	for code, n := range t.Status {
		if n > 0 {
			m[uint16(code)] = n
		}
	}
	for code, n := range t.bigStatus {
		m[code] = n
	}
	return m
}

// Batch sizes: how many rows the recorder writes at a time. Encoding and
// compressing a batch runs without a break, and on one core that delays the
// open model's pacer for as long as the batch takes, so the open model takes
// small batches: the send lag stays under a millisecond, for a little more
// header per row on disk. The closed model has no instants to keep, so it
// takes the larger batches, which cost a little less CPU and disk. (Measure
// with bench/run before changing either; figures go in bench/README.md.)
const (
	openBatchRows   = 1 << 10
	closedBatchRows = 8 << 10
)

// histogramMax is the largest latency the histograms hold: an hour.
const histogramMax = int64(time.Hour)

func newRecorder(w *results.Writer, workers, batchRows int) *recorder {
	// Small worker buffers reach the recorder one at a time, at random
	// phases, instead of all at once.
	rowsCap := max(256, min(4096, batchRows/max(workers, 1)))
	r := &recorder{
		w:       w,
		in:      make(chan []results.Row, workers+4),
		free:    make(chan []results.Row, 2*workers+8),
		samples: make(chan results.Sample, 256),
		rowsCap: rowsCap,
		done:    make(chan struct{}),
		failed:  make(chan struct{}),
		batch:   make([]results.Row, 0, batchRows),
		// 3 significant digits: percentiles within 0.1%, ~1 MiB of counts.
		latency: results.NewLatencyHistogram(),
		window:  hdrhistogram.New(1, histogramMax, 3),
		totals:  totals{bigStatus: map[uint16]int64{}},
	}
	r.p50.Store(-1)
	r.p99.Store(-1)
	return r
}

// buffer returns an empty row buffer, reused when one is free.
func (r *recorder) buffer() []results.Row {
	select {
	case b := <-r.free:
		return b
	default:
		return make([]results.Row, 0, r.rowsCap)
	}
}

// hand gives rows to the recorder and returns an empty buffer.
func (r *recorder) hand(rows []results.Row) []results.Row {
	r.in <- rows
	return r.buffer()
}

// sample keeps a sampled response; the recorder writes them at the end.
func (r *recorder) sample(s results.Sample) {
	select {
	case r.samples <- s:
	default: // more new keys at once than the channel holds: skip one
	}
}

// run writes batches until in is closed: a full batch at once, a partial
// one every second so a slow run still reaches the file.
func (r *recorder) run(expect func(endpoint uint16, status uint16) bool) {
	defer close(r.done)
	if r.background {
		// Encoding and compressing a batch takes a few hundred µs to ms.
		// On its own thread at idle priority it never delays a loop that
		// has a burst due, even on one core: the kernel lets a waking
		// loop preempt it at once. The thread is never unlocked: when
		// run returns it ends with it, rather than go back to the
		// runtime still at idle priority, where any goroutine (a later
		// run's loop, a TLS handshake, the report) could land on it and
		// starve behind every other process on the machine.
		runtime.LockOSThread()
		lowerThreadPriority()
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case rows, ok := <-r.in:
			if !ok {
				r.drainSamples()
				r.writeBatch()
				return
			}
			r.take(rows, expect)
			// With one core the pacer must not wait behind a queue of
			// buffers: let it release what is due between two of them.
			runtime.Gosched()
		case s := <-r.samples:
			r.kept = append(r.kept, s)
		case <-tick.C:
			r.writeBatch()
			r.publishWindow()
		}
	}
}

func (r *recorder) drainSamples() {
	for {
		select {
		case s := <-r.samples:
			r.kept = append(r.kept, s)
		default:
			return
		}
	}
}

func (r *recorder) take(rows []results.Row, expect func(uint16, uint16) bool) {
	for i := range rows {
		row := &rows[i]
		r.count(row, expect)
		r.batch = append(r.batch, *row)
		if len(r.batch) == cap(r.batch) {
			r.writeBatch()
		}
	}
	select {
	case r.free <- rows[:0]:
	default: // enough spare buffers already
	}
}

func (r *recorder) count(row *results.Row, expect func(uint16, uint16) bool) {
	t := &r.totals
	if row.Error.NotRequest() {
		t.Errors[row.Error]++
		return
	}
	t.Requests++
	if row.Sent >= 0 {
		t.Sent++
		r.windowLag = max(r.windowLag, row.Sent-row.Scheduled)
		t.first.see(row)
	}
	if int(row.Error) < len(t.Errors) {
		t.Errors[row.Error]++
	}
	if int(row.Status) < len(t.Status) {
		t.Status[row.Status]++
	} else {
		t.bigStatus[row.Status]++
	}
	ok := false
	if row.Latency >= 0 {
		v := min(max(row.Latency, 1), histogramMax)
		_ = r.window.RecordValue(v) // in range by construction
		r.latency.Record(row.Latency)
		if r.live != nil {
			r.live.record(row.Latency)
		}
		if row.Error == results.None && expect(row.Endpoint, row.Status) {
			t.OK++
			ok = true
		}
	}
	if r.observe != nil {
		r.observe(row, ok)
	}
}

func (r *recorder) writeBatch() {
	if len(r.batch) == 0 || r.err != nil {
		r.batch = r.batch[:0]
		return
	}
	if r.err = r.w.Write(r.batch); r.err != nil {
		close(r.failed)
	}
	r.batch = r.batch[:0]
}

func (r *recorder) publishWindow() {
	if r.live != nil {
		r.live.publish()
	}
	r.lag.Store(r.windowLag)
	r.windowLag = 0
	if r.window.TotalCount() == 0 {
		r.p50.Store(-1)
		r.p99.Store(-1)
		return
	}
	r.p50.Store(r.window.ValueAtQuantile(50))
	r.p99.Store(r.window.ValueAtQuantile(99))
	r.window.Reset()
}
