package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tressi/tressi/ipcguard"
)

// fastStream reads the record batches of a results stream whose columns
// have exactly the types tressi writes: one goroutine reads messages in
// order, workers decompress them (each with decoders it keeps for the whole
// file) and check their checksums, and Next hands them out in stream order.
// Files of other writers, with other column types, go through arrow-go.
type fastStream struct {
	br     *bufio.Reader
	hash   string
	layout schemaLayout
	// pos is each column's field index (by column id), -1 for a column
	// the file does not store: connect_ns in files older than it,
	// service_ns in files newer than deriving it.
	pos [numColumns]int
	// delta says which columns the file stores as deltas; last carries
	// their running sums from batch to batch (in next: in stream order).
	delta [numColumns]bool
	last  runningSums
	// want says which columns (by id) Next needs; a batch with a
	// checksum of its stored bytes decodes only those, any other batch all
	// of them (its content checksum covers them all).
	want [numColumns]bool
	// streamed says the schema promises stream checksums (KeyChecksums).
	streamed bool
	// content says to check the content checksum of batches that also
	// carry a body checksum: a reader that did not call Only (verify)
	// checks both; one that did relies on the body checksum, which covers
	// every byte the content one does.
	content bool
	jobs    chan *fastJob
	order   chan *fastJob
	// inline says Each's goroutines decode the batches they take (see
	// eachInline): no workers of the stream's own, and no order channel.
	inline  bool
	free    chan *fastJob
	stop    chan struct{}
	wg      sync.WaitGroup
	cur     *fastJob
	stopped bool
}

// fastReader is switched off by tests of arrow-go's path.
var fastReader = true

// fastEligible says whether the schema is tressi's: the columns of
// columnNames in that order, each of its writer's type, service_ns and
// connect_ns optional. Each batch then has two buffers a column in a
// known layout. It returns each column's field index.
func fastEligible(schema *arrow.Schema, layout schemaLayout) (pos [numColumns]int, delta [numColumns]bool, ok bool) {
	n := schema.NumFields()
	if !layout.littleEndian || len(layout.dictIDs) != n {
		return pos, delta, false
	}
	f := 0
	for id := range numColumns {
		pos[id] = -1
		if f < n && deltaNames[id] != "" && schema.Field(f).Name == deltaNames[id] {
			delta[id] = true
		}
		if f < n && schema.Field(f).Name == storedName(id, delta[id]) {
			if !arrow.TypeEqual(schema.Field(f).Type, storedType(id, delta[id])) {
				return pos, delta, false
			}
			pos[id] = f
			f++
		} else if id != colService && id != colConnect {
			return pos, delta, false
		}
	}
	ep, errs := layout.dictIDs[pos[colEndpoint]], layout.dictIDs[pos[colError]]
	return pos, delta, f == n && ep >= 0 && errs >= 0 && ep != errs
}

// fastJob is one record batch on its way through the workers; its buffers
// are reused for later batches once Next has moved past it.
type fastJob struct {
	seq       uint64
	msg       rawMessage
	pending   uint32 // what the batch's stream checksum covers before it
	endpoints []string
	errs      []string
	err       error // damage: the stream ends here
	done      chan struct{}

	raw   [numColumns][]byte // decoded (or derived) column bytes by id, 8-byte aligned
	batch Batch
	// derive says service_ns is derived (from the batch once scheduled_ns
	// holds values, not deltas).
	derive bool
	// after is closed once the batch before this one has been handed out
	// (its running sums carried on), summed once this one has: how the
	// inline stream keeps stream order between the goroutines of Each.
	after, summed chan struct{}
}

// newFastStream starts the stream's goroutines: the reader and, unless
// inline (Each's goroutines decode then), its decoding workers.
func newFastStream(br *bufio.Reader, hash string, layout schemaLayout, pending uint32, streamed bool, pos [numColumns]int, delta [numColumns]bool, want [numColumns]bool, content bool, inline bool) *fastStream {
	workers := min(runtime.GOMAXPROCS(0), 4)
	inFlight := 2 * workers
	if inline {
		// No queue: the batch readLoop holds, read while the goroutines
		// are busy, is the one read ahead. Every batch held is a few MB
		// of buffers, faulted in once, and a page fault costs.
		workers, inFlight = 0, 0
	}
	s := &fastStream{
		br: br, hash: hash, layout: layout, streamed: streamed, pos: pos, delta: delta, want: want, content: content,
		inline: inline,
		jobs:   make(chan *fastJob, inFlight),
		order:  make(chan *fastJob, inFlight),
		free:   make(chan *fastJob, inFlight+2+maxConsumers),
		stop:   make(chan struct{}),
	}
	s.wg.Add(1 + workers)
	go s.readLoop(pending)
	for range workers {
		go s.work()
	}
	return s
}

// readLoop reads messages in order: dictionaries it decodes itself (they
// come before the batches that use them), batches go to the workers.
// pending is the CRC-32C of the bytes since the last batch with a stream
// checksum (the schema's, at first), which the next one covers.
func (s *fastStream) readLoop(pending uint32) {
	defer s.wg.Done()
	defer close(s.order)
	defer close(s.jobs)
	dicts := map[int64][]string{}
	dec := newDecoders()
	defer dec.close()
	var seq uint64
	handed := make(chan struct{}) // the inline stream's "batch before": none
	close(handed)
	for {
		job := s.job()
		msg, err := readMessage(s.br, job.msg.body)
		if errors.Is(err, io.EOF) {
			return
		}
		job.msg = msg
		var typ byte
		if err == nil {
			typ, _, err = messageHeader(msg.meta)
		}
		if err == nil && typ == headerDictionary {
			err = readDictionary(dec, msg, dicts)
			if err == nil {
				pending = messageSum(pending, msg)
				s.free <- job
				continue
			}
		}
		if err == nil && typ != headerRecord {
			err = fmt.Errorf("%w: message type %d amid the batches", ipcguard.ErrDamaged, typ)
		}
		if err == nil {
			var streamed bool
			if _, _, streamed, err = metadataValueAt(msg.meta, KeyStreamSum); streamed {
				job.pending, pending = pending, 0
			} else if s.streamed {
				// The empty first batch, covered by the next one. (In
				// older files no batch is covered so: no need to hash.)
				pending = messageSum(pending, msg)
			}
		}
		job.seq, job.err = seq, err
		job.endpoints, job.errs = dicts[s.layout.dictIDs[s.pos[colEndpoint]]], dicts[s.layout.dictIDs[s.pos[colError]]]
		seq++
		if s.inline {
			// Damage too goes to a goroutine of Each, which stops there in
			// stream order.
			job.after, job.summed = handed, make(chan struct{})
			handed = job.summed
			select {
			case s.jobs <- job:
			case <-s.stop:
				return
			}
			if err != nil {
				return
			}
			continue
		}
		job.done = make(chan struct{})
		select {
		case s.order <- job:
		case <-s.stop:
			return
		}
		if err != nil {
			close(job.done)
			return
		}
		select {
		case s.jobs <- job:
		case <-s.stop:
			close(job.done)
			return
		}
	}
}

func (s *fastStream) job() *fastJob {
	select {
	case j := <-s.free:
		return j
	default:
		return &fastJob{}
	}
}

func (s *fastStream) work() {
	defer s.wg.Done()
	dec := newDecoders()
	defer dec.close()
	for job := range s.jobs {
		job.err = s.decode(dec, job)
		close(job.done)
	}
}

// take returns the next job in stream order, its running sums added, and
// keeps it out of reuse until release: Each's consumers hold several at
// once. Only finish's work is left, which needs no stream order.
func (s *fastStream) take() (*fastJob, error, bool) {
	job, ok := <-s.order
	if !ok {
		return nil, nil, false
	}
	<-job.done
	if job.err != nil {
		return nil, job.err, false
	}
	s.last.add(&job.batch, &s.delta)
	return job, nil, true
}

// finish derives service_ns of a batch whose scheduled_ns was stored as
// deltas (take has summed them).
func (s *fastStream) finish(job *fastJob) {
	if b := &job.batch; job.derive && s.delta[colScheduled] {
		deriveService(b.Service, b.Scheduled, b.Sent, b.Latency)
	}
}

// release hands a job's buffers back for a later batch.
func (s *fastStream) release(job *fastJob) {
	select {
	case s.free <- job:
	default:
	}
}

// close stops the goroutines and waits for them.
func (s *fastStream) close() {
	if s.stopped {
		return
	}
	s.stopped = true
	close(s.stop)
	for job := range s.order { // let a blocked readLoop finish
		<-job.done
	}
	s.wg.Wait()
}
