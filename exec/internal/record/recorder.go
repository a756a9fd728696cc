package record

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/results"
)

// Recorder is the single goroutine that owns the results writer: workers
// hand it full row buffers over a channel and get emptied ones back, so
// rows are never allocated per request. It also keeps the run's totals and
// the corrected-latency histogram the end-of-run thresholds read.
type Recorder struct {
	w       *results.Writer
	In      chan []results.Row
	free    chan []results.Row
	samples chan results.Sample
	rowsCap int
	Done    chan struct{}
	// Background: run at idle priority on a thread of its own (the loop
	// engine keeps a P free for it).
	Background bool
	Err        error
	// Failed is closed when writing first fails: the run stops then.
	Failed chan struct{}
	// Observe sees every row taken (Options.Observe); nil: none.
	Observe func(row *results.Row, ok bool)

	batch []results.Row
	// Everything below is the recorder goroutine's until done is closed.
	Totals  totals
	Latency *results.LatencyHistogram // corrected latency of every response: what the verdict reads
	window  *hdrhistogram.Histogram   // the same over the last second, for progress
	Kept    []results.Sample

	// Live figures for progress, published once per window.
	P50, P99 atomic.Int64
	// Live is the corrected latency over the live thresholds' window; nil
	// when the plan judges no latency live.
	Live *liveLatency
	// Lag is the largest send lag (sent − scheduled) of the last window:
	// how far the generator is behind its schedule.
	Lag       atomic.Int64
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
	BigStatus map[uint16]int64
	First     firstSend
}

// ErrorKinds is Errors by word, for the outcome.
func (t *totals) ErrorKinds() map[string]int64 {
	m := map[string]int64{}
	for k, n := range t.Errors {
		if k != int(results.None) && n > 0 {
			m[results.ErrorNames[k]] = n
		}
	}
	return m
}

// Statuses is Status by code, for the outcome.
func (t *totals) Statuses() map[uint16]int64 {
	m := map[uint16]int64{}
	for code, n := range t.Status {
		if n > 0 {
			m[uint16(code)] = n
		}
	}
	for code, n := range t.BigStatus {
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
	OpenBatchRows   = 1 << 10
	ClosedBatchRows = 8 << 10
)

// HistogramMax is the largest latency the histograms hold: an hour.
const HistogramMax = int64(time.Hour)

func NewRecorder(w *results.Writer, workers, batchRows int) *Recorder {
	// Small worker buffers reach the recorder one at a time, at random
	// phases, instead of all at once.
	rowsCap := max(256, min(4096, batchRows/max(workers, 1)))
	r := &Recorder{
		w:       w,
		In:      make(chan []results.Row, workers+4),
		free:    make(chan []results.Row, 2*workers+8),
		samples: make(chan results.Sample, 256),
		rowsCap: rowsCap,
		Done:    make(chan struct{}),
		Failed:  make(chan struct{}),
		batch:   make([]results.Row, 0, batchRows),
		// 3 significant digits: percentiles within 0.1%, ~1 MiB of counts.
		Latency: results.NewLatencyHistogram(),
		window:  hdrhistogram.New(1, HistogramMax, 3),
		Totals:  totals{BigStatus: map[uint16]int64{}},
	}
	r.P50.Store(-1)
	r.P99.Store(-1)
	for range spareBuffers(workers) {
		b := make([]results.Row, 0, rowsCap)
		sys.Prefault(b)
		r.free <- b
	}
	return r
}

// spareBuffers is how many row buffers the recorder makes, mapped, before
// the run: one per sender and the four the hand-over channel holds beyond
// that, for at most 64 senders (more share smaller buffers, and make the
// rest as they start). A sender that finds none free makes one on its own
// time, and the first rows written into it fault in its pages (64 of them
// for 4,096 rows): with none made before, a loop at 20k req/s made four in
// its first second, and took every one of their page faults.
func spareBuffers(workers int) int { return min(max(workers, 1), 64) + 4 }

// Buffer returns an empty row buffer, reused when one is free.
func (r *Recorder) Buffer() []results.Row {
	select {
	case b := <-r.free:
		return b
	default:
		return make([]results.Row, 0, r.rowsCap)
	}
}

// Hand gives rows to the recorder and returns an empty buffer.
func (r *Recorder) Hand(rows []results.Row) []results.Row {
	r.In <- rows
	return r.Buffer()
}

// Sample keeps a sampled response; the recorder writes them at the end.
func (r *Recorder) Sample(s results.Sample) {
	select {
	case r.samples <- s:
	default: // more new keys at once than the channel holds: skip one
	}
}

// Run writes batches until in is closed: a full batch at once, a partial
// one every second so a slow run still reaches the file.
func (r *Recorder) Run(expect func(endpoint uint16, status uint16) bool) {
	defer close(r.Done)
	if r.Background {
		// Encoding and compressing a batch is real work. On its own
		// thread at idle priority it never delays a loop that has a burst
		// due, even on one core: the kernel lets a waking loop preempt it
		// at once. The thread is never unlocked: when
		// run returns it ends with it, rather than go back to the
		// runtime still at idle priority, where any goroutine (a later
		// run's loop, a TLS handshake, the report) could land on it and
		// starve behind every other process on the machine.
		runtime.LockOSThread()
		sys.LowerThreadPriority()
		// Idle priority is not quite never: while a loop stays ready to
		// run (catching up), the kernel still hands this thread its
		// sliver of the core, a whole slice at once, in the middle of a
		// batch's work with the loop waiting (bench/README.md, session
		// 21). Between the pieces of that work it gives the core back to
		// whatever waits for it.
		r.w.SetPause(sys.Yield)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case rows, ok := <-r.In:
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
			r.Kept = append(r.Kept, s)
		case <-tick.C:
			r.writeBatch()
			r.publishWindow()
		}
	}
}

func (r *Recorder) drainSamples() {
	for {
		select {
		case s := <-r.samples:
			r.Kept = append(r.Kept, s)
		default:
			return
		}
	}
}

func (r *Recorder) take(rows []results.Row, expect func(uint16, uint16) bool) {
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

func (r *Recorder) count(row *results.Row, expect func(uint16, uint16) bool) {
	t := &r.Totals
	if row.Error.NotRequest() {
		t.Errors[row.Error]++
		return
	}
	t.Requests++
	if row.Sent >= 0 {
		t.Sent++
		r.windowLag = max(r.windowLag, row.Sent-row.Scheduled)
		t.First.see(row)
	}
	if int(row.Error) < len(t.Errors) {
		t.Errors[row.Error]++
	}
	if int(row.Status) < len(t.Status) {
		t.Status[row.Status]++
	} else {
		t.BigStatus[row.Status]++
	}
	ok := false
	if row.Latency >= 0 {
		v := min(max(row.Latency, 1), HistogramMax)
		_ = r.window.RecordValue(v) // in range by construction
		r.Latency.Record(row.Latency)
		if r.Live != nil {
			r.Live.record(row.Latency)
		}
		if row.Error == results.None && expect(row.Endpoint, row.Status) {
			t.OK++
			ok = true
		}
	}
	if r.Observe != nil {
		r.Observe(row, ok)
	}
}

func (r *Recorder) writeBatch() {
	if len(r.batch) == 0 || r.Err != nil {
		r.batch = r.batch[:0]
		return
	}
	if r.Err = r.w.Write(r.batch); r.Err != nil {
		close(r.Failed)
	}
	r.batch = r.batch[:0]
}

func (r *Recorder) publishWindow() {
	if r.Live != nil {
		r.Live.publish()
	}
	r.Lag.Store(r.windowLag)
	r.windowLag = 0
	if r.window.TotalCount() == 0 {
		r.P50.Store(-1)
		r.P99.Store(-1)
		return
	}
	r.P50.Store(r.window.ValueAtQuantile(50))
	r.P99.Store(r.window.ValueAtQuantile(99))
	r.window.Reset()
}
