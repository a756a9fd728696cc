package fast

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/check"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/session"
	"github.com/tressi/tressi/results"
	"github.com/valyala/fasthttp"
)

// worker is the fasthttp engine's sender: it sends one request at a time
// and records into its own sink.
type worker struct {
	run.RowSink
	eng   *Engine
	req   fasthttp.Request
	resp  fasthttp.Response
	buf   []byte // rendered request parts; holds the body while it is sent
	vals  compile.Values
	timer *time.Timer
	wake  chan struct{} // the pacer's signal that this worker's slot is due
	// sreq holds a copy of the static request static, sent as is while
	// the worker sends the same one again.
	sreq   fasthttp.Request
	static *fasthttp.Request
	// The body of the last response: fasthttp streams it (see
	// clients.go) and the worker keeps only its first keep bytes in body,
	// reading the rest through drainBuf; bodyLen is its whole size.
	body     []byte
	bodyLen  int64
	drainBuf []byte
	check    check.Matcher // the request's checks, fed as the body is read
	// captureKeep is how much of the body the session step being sent
	// needs for its captures (0 outside sessions).
	captureKeep int
	cap         session.FastResponse // the last response, as captures read it
	// cbuf is the Cookie header's scratch; cpath the last request's path,
	// for Set-Cookie's default path and cookie() captures (cookies.go).
	cbuf, cpath []byte
	// A request that follows redirects (redirect.go): its chain so far,
	// the two requests its hops take turns in, scratch for a hop's path
	// and URI, and the target the last hop went to.
	chain      hopChain
	hopReqs    [2]fasthttp.Request
	rpath      []byte
	ubuf       []byte
	lastTarget int
}

const (
	// spinWindow is how close to its due instant a worker stops sleeping
	// and yields in a loop instead: timer wake-ups come late, and yielding
	// holds the send lag closer to the due instant without burning a core.
	spinWindow = 200 * time.Microsecond
)

func (e *Engine) newWorker() *worker {
	return e.workerWith(e.ex.NewSink())
}

func (e *Engine) workerWith(sink run.RowSink) *worker {
	ex := e.ex
	w := &worker{RowSink: sink, eng: e, timer: time.NewTimer(time.Hour), wake: make(chan struct{}, 1)}
	w.cap = session.FastResponse{R: &w.resp}
	w.cap.Body = &w.body
	ex.Cl.Own(&w.req, &w.resp)
	ex.Cl.Own(&w.sreq, &w.resp)
	ex.Cl.Own(&w.hopReqs[0], &w.resp)
	ex.Cl.Own(&w.hopReqs[1], &w.resp)
	w.timer.Stop()
	w.vals.Seed = ex.S.Seed
	return w
}

// runOpen sends each slot the pacer releases, in due order, until the
// schedule is exhausted. After a stop it keeps claiming, recording each
// remaining slot as not sent, so every slot of the shard ends with exactly
// one row.
func (w *worker) runOpen() {
	ex := w.Ex
	for {
		k, slot, ok := w.eng.ring.Claim(&w.wake, w.FlushOld)
		if !ok {
			break
		}
		e, due := slot.Entry(), slot.Due()
		if ex.Stopping() {
			w.NotSent(k, e, due)
			continue
		}
		if ex.S.Entries[e].Scenario {
			w.eng.pool.start(&w.RowSink, k, e, due)
			continue
		}
		w.Send(k, e, due)
	}
	w.Flush()
}

// waitUntil sleeps until due (ns after start); false if the run stopped.
// Closed-model users wait with it; the open model's pacer has its own.
func (w *worker) waitUntil(due int64) bool {
	ex := w.Ex
	d := time.Duration(due - ex.Clock.Now())
	if d > spinWindow {
		if d > time.Duration(run.FlushAge) && len(w.Rows) > 0 {
			w.Flush() // do not sit on rows through a long wait
		}
		w.timer.Reset(d - spinWindow)
		select {
		case <-w.timer.C:
		case <-ex.StopCh:
			w.timer.Stop()
			return false
		}
	}
	for ex.Clock.Now() < due {
		if ex.Stopping() {
			return false
		}
		runtime.Gosched()
	}
	return true
}

// Send sends the entry's request for slot k, due at scheduled, and records
// its outcome.
func (w *worker) Send(k uint64, entry int, scheduled int64) {
	ex := w.Ex
	pr := &ex.Reqs[ex.S.Entries[entry].Steps[0].Request]
	if pr.Static == nil {
		w.vals.Slot = k
		w.vals.Row = ex.S.Row(entry, k)
	}
	w.exchangeCookies(pr.Client, w.request(pr), pr, k, scheduled, w.endpointCookies(entry))
}

// request readies pr to send. A static request stays in sreq while the
// worker sends it again (fasthttp does not change a request it sends), so
// it is copied, and its URI parsed, only when another one comes in between;
// one with holes is rendered from w.vals.
func (w *worker) request(pr *run.PreparedRequest) *fasthttp.Request {
	if pr.Static != nil {
		if w.static != pr.Static {
			pr.Static.CopyTo(&w.sreq)
			w.static = pr.Static
		}
		return &w.sreq
	}
	w.buf = run.Render(&w.req, pr, &w.vals, w.buf)
	return &w.req
}

// exchange sends req to client and records its outcome for slot k, due (or
// ready) at scheduled. Endpoints and session steps share it; it returns
// when the response completed and the request's error.
func (w *worker) exchange(client *fasthttp.HostClient, req *fasthttp.Request, pr *run.PreparedRequest, k uint64, scheduled int64) (int64, error) {
	done, err := w.exchangeHop(client, req, pr, k, scheduled)
	if err == nil {
		w.record(pr, k, scheduled, done, nil)
	}
	return done, err
}

// exchangeHop sends req and reads its answer: a failure is recorded and
// returned, an answer left to the caller (exchange records it; a redirect
// chain judges it first).
func (w *worker) exchangeHop(client *fasthttp.HostClient, req *fasthttp.Request, pr *run.PreparedRequest, k uint64, scheduled int64) (int64, error) {
	// fasthttp keeps a response's SkipBody across requests as if the caller
	// had set it: after a HEAD, the next GET on this worker would leave its
	// body on the connection and the response after it would read garbage.
	w.resp.SkipBody = false
	// The timeout counts from the due (or ready) instant, as the loop
	// engine's does: a request that waited for a free worker waited for
	// a connection (one worker per connection), and that wait is part of
	// its timeout. fasthttp alone would start it when the worker took the
	// request up, giving a late request a whole timeout more.
	left := time.Duration(scheduled-w.Ex.Clock.Now()) + pr.Timeout
	if left <= 0 {
		return w.waitedOut(pr, k, scheduled)
	}
	err := client.DoTimeout(req, &w.resp, left)
	if err == nil {
		err = w.readBody(pr)
	} else {
		w.body, w.bodyLen = w.body[:0], 0
	}
	done := w.Ex.Clock.Now()
	if err != nil {
		w.record(pr, k, scheduled, done, err)
	}
	return done, err
}

// errWaitedOut is a request whose timeout ran out before a connection
// (a worker) was free to send it.
var errWaitedOut = fmt.Errorf("no connection came free within the timeout: %w", fasthttp.ErrTimeout)

// waitedOut records a request whose timeout ended before it could be
// sent: a timeout, never sent. fasthttp is not called, so w.resp still
// holds the previous round trip's meter, which record must not read.
func (w *worker) waitedOut(pr *run.PreparedRequest, k uint64, scheduled int64) (int64, error) {
	w.body, w.bodyLen = w.body[:0], 0
	done := w.Ex.Clock.Now()
	row := w.Outcome(pr, k, scheduled, -1, done, 0, 0, 0, errWaitedOut)
	if w.WantSample(&row) {
		w.PutSampleErr(&row, pr, nil, nil, 0, errWaitedOut)
	}
	w.Keep(row, done)
	return done, errWaitedOut
}

// readBody reads the response's body, streamed or not, keeping its first
// bytes: as many as a sample or the step's captures need, nothing more, so
// a worker holds a bounded amount of memory whatever servers send.
func (w *worker) readBody(pr *run.PreparedRequest) error {
	keep := w.captureKeep
	if w.SampleNew(pr.Endpoint, uint16(w.resp.StatusCode())) {
		keep = max(keep, w.Ex.MaxSample)
	}
	w.body = w.body[:0]
	w.check.Start(pr.Checks)
	if pr.Checks.ReadsHead() {
		pr.Checks.Headers(func(i int, name string) { w.check.FieldFor(i, w.resp.Header.Peek(name)) })
	}
	stream := w.resp.BodyStream()
	if stream == nil {
		b := w.resp.Body()
		w.body, w.bodyLen = append(w.body, b[:min(len(b), keep)]...), int64(len(b))
		w.check.Body(b)
		return nil
	}
	if w.drainBuf == nil {
		w.drainBuf = make([]byte, 32<<10)
	}
	w.bodyLen = 0
	var err error
	for {
		n, rerr := stream.Read(w.drainBuf)
		if room := keep - len(w.body); room > 0 {
			w.body = append(w.body, w.drainBuf[:min(n, room)]...)
		}
		w.check.Body(w.drainBuf[:n])
		w.bodyLen += int64(n)
		if w.bodyLen > int64(w.Ex.MaxBody) {
			err = fasthttp.ErrBodyTooLarge // streamed, the body is the worker's to limit
			break
		}
		if rerr != nil {
			if rerr != io.EOF {
				err = rerr
			}
			break
		}
	}
	if rc, ok := stream.(fasthttp.ReadCloserWithError); ok {
		if cerr := rc.CloseWithError(err); err == nil && cerr != nil {
			err = cerr
		}
	} else if cerr := w.resp.CloseBodyStream(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// record appends the row of a request that ended at done with err; the
// response and its connection meter are w.resp's.
func (w *worker) record(pr *run.PreparedRequest, k uint64, scheduled, done int64, err error) {
	sent, out, in, connect := int64(-1), int64(0), int64(0), int64(0)
	if m, ok := w.resp.LocalAddr().(*run.Meter); ok {
		sent, out, in, connect = m.Sent, m.Out, m.In, m.Connect
		if err != nil && m.TlsErr != nil {
			err = m.TlsErr
		}
		m.Release()
	}
	sent, out, in, connect = w.chain.fold(sent, out, in, connect)
	status := 0
	if err == nil {
		status = w.resp.StatusCode()
	}
	var row results.Row
	if stop := w.chain.stop; stop != nil {
		row, err = w.RedirectStopped(pr, k, scheduled, sent, done, out, in, status, stop), stop
	} else {
		row = w.Outcome(pr, k, scheduled, sent, done, out, in, status, err)
	}
	w.chain = hopChain{}
	row.Connect = connect
	switch {
	case err == nil && w.Checked(&row, pr, &w.check):
		if w.WantSample(&row) {
			w.PutCheckSample(&row, pr, w.resp.Header.Header(), w.body, w.bodyLen, w.check.Detail())
		}
	case w.WantSample(&row):
		w.PutSampleErr(&row, pr, w.resp.Header.Header(), w.body, w.bodyLen, err)
	}
	w.Keep(row, done)
}
