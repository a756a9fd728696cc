package exec

import (
	"runtime"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/results"
)

// worker sends one request at a time and keeps its own result buffer, so
// the per-request path takes no lock and allocates nothing once warm.
type worker struct {
	ex    *executor
	req   fasthttp.Request
	resp  fasthttp.Response
	buf   []byte // rendered request parts; holds the body while it is sent
	vals  compile.Values
	rows  []results.Row
	first int64 // when the oldest buffered row was added
	timer *time.Timer
	stats *workerStats
	seen  map[sampleKey]struct{} // keys this worker already offered
	// flushAt is the row count at which the buffer goes to the recorder.
	flushAt int
	wake    chan struct{} // the pacer's signal that this worker's slot is due
	// sreq holds a copy of the static request static, sent as is while
	// the worker sends the same one again.
	sreq   fasthttp.Request
	static *fasthttp.Request
}

type sampleKey struct {
	endpoint, status uint16
	err              results.ErrorKind
}

const (
	// spinWindow is how close to its due instant a worker stops sleeping
	// and yields in a loop instead: timer wake-ups are late by tens of µs,
	// yielding holds the send lag to a few µs without burning a core.
	spinWindow = 200 * time.Microsecond
	// flushAge bounds how long a row waits in a worker's buffer, so a slow
	// run still reaches the file (and the live figures) every second.
	flushAge = int64(time.Second)
)

func (ex *executor) newWorker() *worker {
	st := new(workerStats)
	ex.stats = append(ex.stats, st)
	w := &worker{ex: ex, stats: st, seen: map[sampleKey]struct{}{}, timer: time.NewTimer(time.Hour),
		wake: make(chan struct{}, 1)}
	w.timer.Stop()
	w.vals.Seed = ex.s.Seed
	w.rows = ex.rec.buffer()
	// Workers started together fill their buffers together: staggering the
	// first flush keeps the recorder's work (and the pacer's delays behind
	// it on one core) spread out instead of 50 buffers landing at once.
	w.flushAt = cap(w.rows) - (len(ex.stats)*97)%cap(w.rows)
	return w
}

// runOpen sends each slot the pacer releases, in due order, until the
// schedule is exhausted. After a stop it keeps claiming, recording each
// remaining slot as not sent, so every slot of the shard ends with exactly
// one row.
func (w *worker) runOpen() {
	ex := w.ex
	for {
		k, slot, ok := ex.ring.claim(&w.wake, w.flushOld)
		if !ok {
			break
		}
		e, due := slot.Entry(), slot.Due()
		if ex.stopping() {
			w.notSent(k, e, due)
			continue
		}
		if ex.s.Entries[e].Scenario {
			ex.scen.pool.start(w, k, e, due)
			continue
		}
		w.send(k, e, due)
	}
	w.flush()
}

// waitUntil sleeps until due (ns after start); false if the run stopped.
// Closed-model users wait with it; the open model's pacer has its own.
func (w *worker) waitUntil(due int64) bool {
	ex := w.ex
	d := time.Duration(due - ex.clock.now())
	if d > spinWindow {
		if d > time.Duration(flushAge) && len(w.rows) > 0 {
			w.flush() // do not sit on rows through a long wait
		}
		w.timer.Reset(d - spinWindow)
		select {
		case <-w.timer.C:
		case <-ex.stopCh:
			w.timer.Stop()
			return false
		}
	}
	for ex.clock.now() < due {
		if ex.stopping() {
			return false
		}
		runtime.Gosched()
	}
	return true
}

// send sends the entry's request for slot k, due at scheduled, and records
// its outcome.
func (w *worker) send(k uint64, entry int, scheduled int64) {
	ex := w.ex
	pr := &ex.reqs[ex.s.Entries[entry].Steps[0].Request]
	if pr.static == nil {
		w.vals.Slot = k
		w.vals.Row = ex.s.Row(entry, k)
	}
	w.exchange(pr.client, w.request(pr), pr, k, scheduled)
}

// request readies pr to send. A static request stays in sreq while the
// worker sends it again (fasthttp does not change a request it sends), so
// it is copied, and its URI parsed, only when another one comes in between;
// one with holes is rendered from w.vals.
func (w *worker) request(pr *preparedRequest) *fasthttp.Request {
	if pr.static != nil {
		if w.static != pr.static {
			pr.static.CopyTo(&w.sreq)
			w.static = pr.static
		}
		return &w.sreq
	}
	w.buf = render(&w.req, pr, &w.vals, w.buf)
	return &w.req
}

// exchange sends req to client and records its outcome for slot k, due (or
// ready) at scheduled. Endpoints and session steps share it; it returns
// when the response completed and the request's error.
func (w *worker) exchange(client *fasthttp.HostClient, req *fasthttp.Request, pr *preparedRequest, k uint64, scheduled int64) (int64, error) {
	// fasthttp keeps a response's SkipBody across requests as if the caller
	// had set it: after a HEAD, the next GET on this worker would leave its
	// body on the connection and the response after it would read garbage.
	w.resp.SkipBody = false
	err := client.DoTimeout(req, &w.resp, pr.timeout)
	done := w.ex.clock.now()
	w.record(pr, k, scheduled, done, err)
	return done, err
}

// record appends the row of a request that ended at done with err; the
// response and its connection meter are w.resp's.
func (w *worker) record(pr *preparedRequest, k uint64, scheduled, done int64, err error) {
	sent, out, in, connect := int64(-1), int64(0), int64(0), int64(0)
	if m, ok := w.resp.LocalAddr().(*meter); ok {
		sent, out, in, connect = m.sent, m.out, m.in, m.connect
		if err != nil && m.tlsErr != nil {
			err = m.tlsErr
		}
		m.release()
	}
	status := 0
	if err == nil {
		status = w.resp.StatusCode()
	}
	row := w.outcome(pr, k, scheduled, sent, done, out, in, status, err)
	row.Connect = connect
	if w.wantSample(&row) {
		body := w.resp.Body()
		w.putSampleErr(&row, pr, w.resp.Header.Header(), body, int64(len(body)), err)
	}
	w.keep(row, done)
}

// outcome builds the row of a request that ended at done, counting it in
// the live figures. Both engines record through it: sent is -1 when no byte
// went out, status is the response's when err is nil.
func (w *worker) outcome(pr *preparedRequest, k uint64, scheduled, sent, done, out, in int64, status int, err error) results.Row {
	ex := w.ex
	row := results.Row{Slot: k, Scheduled: scheduled, Sent: sent, Latency: -1, Service: -1, Endpoint: pr.endpoint,
		BytesOut: clampU32(out), BytesIn: clampU32(in)}
	if err == nil {
		row.Status = uint16(status)
		row.Latency = done - scheduled
		if sent >= 0 {
			row.Service = done - sent
		}
	} else if ex.aborted.Load() {
		row.Error = results.Interrupted
	} else {
		row.Error = classify(err)
	}
	if sent >= 0 {
		w.stats.sent.Add(1)
	}
	w.stats.done.Add(1)
	if err != nil || !results.ExpectsStatus(pr.spec.Expect, status) {
		w.stats.failed.Add(1)
	}
	return row
}

// keep buffers a finished row and ends the run on a status a threshold
// names.
func (w *worker) keep(row results.Row, done int64) {
	w.appendAt(row, done)
	if row.Error == results.None && int(row.Status) < len(w.ex.abortStatus) && w.ex.abortStatus[row.Status] {
		w.ex.th.statusSeen(row.Status)
	}
}

func clampU32(n int64) uint32 {
	if n > 1<<32-1 {
		return 1<<32 - 1
	}
	return uint32(n)
}

// notSent records a slot that was never started.
func (w *worker) notSent(k uint64, entry int, due int64) {
	if w.ex.scen != nil && w.ex.scen.byEntry[entry] != nil {
		w.sessionNotSent(k, w.ex.scen.byEntry[entry], due)
		return
	}
	pr := &w.ex.reqs[w.ex.s.Entries[entry].Steps[0].Request]
	w.append(results.Row{Slot: k, Scheduled: due, Sent: -1, Latency: -1, Service: -1,
		Endpoint: pr.endpoint, Error: results.NotSent})
}

func (w *worker) append(r results.Row) { w.appendAt(r, w.ex.clock.now()) }

// appendAt buffers a row at now, the clock's latest reading: one clock read
// per event is enough.
func (w *worker) appendAt(r results.Row, now int64) {
	if len(w.rows) == 0 {
		w.first = now
	}
	w.rows = append(w.rows, r)
	if len(w.rows) >= w.flushAt || now-w.first > flushAge {
		w.flush()
		w.flushAt = cap(w.rows)
	}
}

// flushOld flushes rows that waited half the flush age: what a parked worker
// does when the pacer pokes it, so a slow run still reaches the file while
// at a fast rate the buffers keep filling and flushing at their own pace.
func (w *worker) flushOld() {
	if len(w.rows) > 0 && w.ex.clock.now()-w.first > flushAge/2 {
		w.flush()
	}
}

// flush hands the buffer to the recorder and takes an empty one.
func (w *worker) flush() {
	if len(w.rows) == 0 {
		return
	}
	w.rows = w.ex.rec.hand(w.rows)
}

// wantSample says whether r is the first of its (endpoint, status, error)
// that any worker saw; the answer is yes once per key. The local map keeps
// the shared map off the per-request path.
func (w *worker) wantSample(r *results.Row) bool {
	key := sampleKey{r.Endpoint, r.Status, r.Error}
	if _, ok := w.seen[key]; ok {
		return false
	}
	w.seen[key] = struct{}{}
	_, taken := w.ex.samples.LoadOrStore(key, struct{}{})
	return !taken
}

// sampleNew is wantSample without taking the key: whether a response with
// that status would be the first of its kind seen here.
func (w *worker) sampleNew(endpoint, status uint16) bool {
	_, ok := w.seen[sampleKey{endpoint, status, results.None}]
	return !ok
}

// putSample hands the sample of r to the recorder: for a response, its
// header block, the first bytes of its body and the body's whole size.
func (w *worker) putSample(r *results.Row, pr *preparedRequest, head, body []byte, size int64) {
	w.putSampleErr(r, pr, head, body, size, nil)
}

// putSampleErr is putSample for a request that failed with err, whose text
// the sample keeps (for a tls error it says why: unknown authority, name
// mismatch, expired).
func (w *worker) putSampleErr(r *results.Row, pr *preparedRequest, head, body []byte, size int64, err error) {
	s := results.Sample{Endpoint: pr.spec.Name, Status: r.Status, Error: r.Error.String()}
	if err != nil && r.Error != results.Interrupted {
		s.Detail = errDetail(err)
	}
	if r.Error == results.None {
		s.Headers = string(head)
		s.BodySize = clampU32(size)
		s.Body = append([]byte(nil), body[:min(len(body), w.ex.maxSample)]...)
	}
	w.ex.rec.sample(s)
}
