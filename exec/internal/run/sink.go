package run

import (
	"time"

	"github.com/tressi/tressi/exec/internal/check"
	"github.com/tressi/tressi/results"
)

// RowSink is where one sender (a fasthttp worker, a session runner, an
// event loop) puts the rows it finishes: a buffer handed to the recorder in
// batches, the sender's live counters and its memory of which kinds of
// response it already offered as samples. One goroutine owns a sink, so the
// per-request path takes no lock and allocates nothing once warm.
type RowSink struct {
	Ex    *Executor
	Rows  []results.Row
	First int64 // when the oldest buffered row was added
	Stats *WorkerStats
	seen  map[sampleKey]struct{} // keys this sink already offered
	// last is the key wantSample was last asked about, in seen since
	// (when hasLast): the usual next row, of the same kind, skips the map.
	last    sampleKey
	hasLast bool
	// flushAt is the row count at which the buffer goes to the recorder.
	flushAt int
}

type sampleKey struct {
	endpoint, status uint16
	err              results.ErrorKind
}

// NewSink gives a sender its sink, with counters of its own the monitor
// sums.
func (ex *Executor) NewSink() RowSink {
	st := new(WorkerStats)
	ex.Stats = append(ex.Stats, st)
	s := ex.SinkWith(st)
	// Senders started together fill their buffers together: staggering the
	// first flush keeps the recorder's work (and the pacer's delays behind
	// it on one core) spread out instead of 50 buffers landing at once.
	s.flushAt = cap(s.Rows) - (len(ex.Stats)*97)%cap(s.Rows)
	return s
}

// SinkWith is a sink counting into stats, which may be shared: the session
// pool's runners count in stripes, since the monitor reads a list fixed
// before the run.
func (ex *Executor) SinkWith(stats *WorkerStats) RowSink {
	s := RowSink{Ex: ex, Stats: stats, seen: map[sampleKey]struct{}{}, Rows: ex.Rec.Buffer()}
	s.flushAt = cap(s.Rows)
	return s
}

// Outcome builds the row of a request that ended at done, counting it in
// the live figures. Every engine records through it: sent is -1 when no
// byte went out, status is the response's when err is nil.
func (s *RowSink) Outcome(pr *PreparedRequest, k uint64, scheduled, sent, done, out, in int64, status int, err error) results.Row {
	ex := s.Ex
	row := results.Row{Slot: k, Scheduled: scheduled, Sent: sent, Latency: -1, Service: -1, Endpoint: pr.Endpoint,
		BytesOut: ClampU32(out), BytesIn: ClampU32(in)}
	if err == nil {
		row.Status = uint16(status)
		row.Latency = done - scheduled
		if sent >= 0 {
			row.Service = done - sent
		}
	} else if ex.Aborted.Load() {
		row.Error = results.Interrupted
	} else {
		row.Error = Classify(err)
		if pr.Spec.GRPC != nil {
			row.Status = grpcFailure(row.Error, err)
		}
	}
	if sent >= 0 {
		s.Stats.Sent.Add(1)
	}
	if row.Error != results.Interrupted { // cut off by the stop: no verdict on the server
		s.Stats.Done.Add(1)
		if !Succeeded(pr, status, err == nil) {
			s.Stats.Failed.Add(1)
		}
	}
	return row
}

// Checked finishes the checks m ran on the response of row (an answer,
// error none) and counts them: a failed one makes the row check_failed.
// It says whether one failed.
func (s *RowSink) Checked(row *results.Row, pr *PreparedRequest, m *check.Matcher) bool {
	if pr.Checks == nil || row.Error != results.None {
		return false
	}
	failed := m.Finish()
	for i := range pr.Checked {
		pr.Checked[i].Run.Add(1)
		if failed&(1<<i) != 0 {
			pr.Checked[i].Failed.Add(1)
		}
	}
	if failed == 0 {
		return false
	}
	if results.ExpectsStatus(pr.Spec.Expect, int(row.Status)) {
		s.Stats.Failed.Add(1) // Outcome counted it ok
	}
	row.Error = results.CheckFailed
	return true
}

// Keep buffers a finished row and ends the run on a status a threshold
// names.
func (s *RowSink) Keep(row results.Row, done int64) {
	s.appendAt(row, done)
	if row.Error == results.None && int(row.Status) < len(s.Ex.AbortStatus) && s.Ex.AbortStatus[row.Status] {
		s.Ex.Th.statusSeen(row.Status)
	}
}

func ClampU32(n int64) uint32 {
	if n > 1<<32-1 {
		return 1<<32 - 1
	}
	return uint32(n)
}

// NotSent records a slot that was never started: for a scenario, one row
// for each request the session would have sent.
func (s *RowSink) NotSent(k uint64, entry int, due int64) {
	if sc := s.Ex.Scen.Entry(entry); sc != nil {
		s.NotSentFrom(k, sc, 0, 0, due)
		return
	}
	pr := &s.Ex.Reqs[s.Ex.S.Entries[entry].Steps[0].Request]
	s.Append(results.Row{Slot: k, Scheduled: due, Sent: -1, Latency: -1, Service: -1,
		Endpoint: pr.Endpoint, Error: results.NotSent})
}

// NotSentFrom records the requests of a session left unsent from repeat j
// of step i on. They carry the instant the first of them became ready, so
// a session's rows always add up to its requests (Σ repeats) whether it
// ran, stopped half-way or never began.
func (s *RowSink) NotSentFrom(k uint64, sc *Program, i, j int, ready int64) {
	for ; i < len(sc.Steps); i, j = i+1, 0 {
		st := &sc.Steps[i]
		for ; j < st.Repeat && st.Rows(); j++ {
			s.Unsent(k, st, ready, results.NotSent)
		}
	}
}

// Unsent records one request of a session that never went out: not_sent,
// or capture_failed when a value it uses was never captured.
//
// A not_sent row is no request and says nothing about the server, so the
// live figures leave it out, as the verdict does (results.Evaluate): a
// stop records the rest of every session at once, and counting those rows
// as failures made the live error rate of a run stopped after two errors
// read 98%.
func (s *RowSink) Unsent(k uint64, st *Step, ready int64, why results.ErrorKind) {
	if why != results.NotSent {
		s.Stats.Done.Add(1)
		s.Stats.Failed.Add(1)
	}
	s.Append(results.Row{Slot: k, Scheduled: ready, Sent: -1, Latency: -1, Service: -1,
		Endpoint: st.Req.Endpoint, Error: why})
}

func (s *RowSink) Append(r results.Row) { s.appendAt(r, s.Ex.Clock.Now()) }

// appendAt buffers a row at now, the clock's latest reading: one clock read
// per event is enough.
func (s *RowSink) appendAt(r results.Row, now int64) {
	if len(s.Rows) == 0 {
		s.First = now
	}
	s.Rows = append(s.Rows, r)
	if len(s.Rows) >= s.flushAt || now-s.First > FlushAge {
		s.Flush()
		s.flushAt = cap(s.Rows)
	}
}

// FlushOld flushes rows that waited half the flush age: what a parked
// sender does when it is poked, so a slow run still reaches the file while
// at a fast rate the buffers keep filling and flushing at their own pace.
func (s *RowSink) FlushOld() {
	if len(s.Rows) > 0 && s.Ex.Clock.Now()-s.First > FlushAge/2 {
		s.Flush()
	}
}

// Flush hands the buffer to the recorder and takes an empty one.
func (s *RowSink) Flush() {
	if len(s.Rows) == 0 {
		return
	}
	s.Rows = s.Ex.Rec.Hand(s.Rows)
}

// WantSample says whether r is the first of its (endpoint, status, error)
// that any sender saw; the answer is yes once per key. The local map keeps
// the shared map off the per-request path, the last key the local map off
// the common case (one answer after another of the same kind).
func (s *RowSink) WantSample(r *results.Row) bool {
	key := sampleKey{r.Endpoint, r.Status, r.Error}
	if s.hasLast && key == s.last {
		return false
	}
	s.last, s.hasLast = key, true
	if _, ok := s.seen[key]; ok {
		return false
	}
	s.seen[key] = struct{}{}
	_, taken := s.Ex.samples.LoadOrStore(key, struct{}{})
	return !taken
}

// SampleNew is wantSample without taking the key: whether a response with
// that status would be the first of its kind seen here.
func (s *RowSink) SampleNew(endpoint, status uint16) bool {
	_, ok := s.seen[sampleKey{endpoint, status, results.None}]
	return !ok
}

// PutSample hands the sample of r to the recorder: for a response, its
// header block, the first bytes of its body and the body's whole size.
func (s *RowSink) PutSample(r *results.Row, pr *PreparedRequest, head, body []byte, size int64) {
	s.PutSampleErr(r, pr, head, body, size, nil)
}

// PutSampleErr is putSample for a request that failed with err, whose text
// the sample keeps (for a tls error it says why: unknown authority, name
// mismatch, expired).
func (s *RowSink) PutSampleErr(r *results.Row, pr *PreparedRequest, head, body []byte, size int64, err error) {
	smp := results.Sample{Endpoint: pr.Spec.Name, Status: r.Status, Error: r.Error.String()}
	if err != nil && r.Error != results.Interrupted {
		smp.Detail = errDetail(err)
	}
	if r.Error == results.None || r.Error == results.CheckFailed {
		smp.Headers = string(head)
		smp.BodySize = ClampU32(size)
		smp.Body = append([]byte(nil), body[:min(len(body), s.Ex.MaxSample)]...)
	}
	s.Ex.Rec.Sample(smp)
}

// PutCheckSample is PutSample for a response that failed a check: its
// detail names the check and why (check.Matcher.Detail). head and body are
// nil when the engine kept neither (an earlier response of its status was
// sampled already).
func (s *RowSink) PutCheckSample(r *results.Row, pr *PreparedRequest, head, body []byte, size int64, detail string) {
	smp := results.Sample{Endpoint: pr.Spec.Name, Status: r.Status, Error: r.Error.String(), Detail: detail,
		Headers: string(head), BodySize: ClampU32(size), Body: append([]byte(nil), body[:min(len(body), s.Ex.MaxSample)]...)}
	s.Ex.Rec.Sample(smp)
}

// FlushAge bounds how long a row waits in a sender's buffer, so a slow run
// still reaches the file (and the live figures) every second.
const FlushAge = int64(time.Second)
