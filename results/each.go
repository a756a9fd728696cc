package results

import "sync"

// maxConsumers bounds Each's goroutines: each holds a batch's buffers,
// which the fast reader keeps room to reuse.
const maxConsumers = 8

// Each hands every batch to fn, on up to workers goroutines at once (at most maxConsumers), so a
// reader that folds rows into state of its own per worker (the report's
// tallies, merged at the end) spends every core on the rows and not only
// on decoding them. worker is in [0, workers); b is valid until fn returns.
// Batches are taken in stream order (Batch.Row numbers them) but may be
// processed out of it. An error of fn stops reading; Each returns the one
// of the batch earliest in the file. How reading ended is in Err and
// Truncated, as after Next. Files the fast reader does not take (other
// writers' types) go through Next, one batch at a time, as worker 0.
func (r *Reader) Each(workers int, fn func(worker int, b *Batch) error) error {
	workers = min(workers, maxConsumers)
	if r.err != nil || r.Truncated != nil {
		return nil
	}
	if !r.started && r.fastFrom != nil && workers > 1 {
		r.startWith(true)
		return r.eachInline(workers, fn)
	}
	r.start()
	if r.fast == nil || workers <= 1 {
		for {
			b, ok := r.Next()
			if !ok {
				return nil
			}
			if err := fn(0, b); err != nil {
				return err
			}
		}
	}
	if c := r.fast.cur; c != nil { // a batch Next handed out before
		r.fast.release(c)
		r.fast.cur = nil
	}
	var (
		mu       sync.Mutex // over takeFast, which keeps the Reader's counts, and the fields below
		stopped  bool
		first    error
		firstRow int64
		wg       sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				var job *fastJob
				ok := !stopped
				if ok {
					job, ok = r.takeFast()
				}
				mu.Unlock()
				if !ok {
					return
				}
				r.fast.finish(job)
				row := job.batch.Row
				err := fn(w, &job.batch)
				r.fast.release(job)
				if err != nil {
					mu.Lock()
					if first == nil || row < firstRow {
						first, firstRow = err, row
					}
					stopped = true
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// eachInline is Each on a stream started for it: each goroutine decodes
// the batch it takes and hands it to fn on the same core, so the batch is
// still in that core's cache when fn reads it, and a batch's buffers go
// back for a later one as soon as fn returns (a few batches held in all,
// not one per stage of a pipeline). Stream order, which the running sums
// and row numbers need, passes from each batch to the next through its
// after and summed channels; only that short step waits for the batch
// before, not the decoding.
func (r *Reader) eachInline(workers int, fn func(worker int, b *Batch) error) error {
	s := r.fast
	var (
		mu       sync.Mutex // over the fields below
		stopped  bool
		first    error
		firstRow int64
		wg       sync.WaitGroup
	)
	stop := func(row int64, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && (first == nil || row < firstRow) {
			first, firstRow = err, row
		}
		stopped = true
	}
	isStopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return stopped
	}
	for w := range workers {
		wg.Go(func() {
			dec := newDecoders()
			defer dec.close()
			for job := range s.jobs {
				if job.err == nil && !isStopped() {
					job.err = s.decode(dec, job)
				}
				<-job.after
				// In stream order from here to close(job.summed).
				if isStopped() {
					close(job.summed)
					return
				}
				if job.err == nil {
					s.last.add(&job.batch, &s.delta)
				}
				if job.err == nil && r.firstEmpty(job) {
					r.skippedFirst = true
					close(job.summed)
					s.release(job)
					continue
				}
				if _, ok := r.handOut(job, job.err, true); !ok {
					// Damage: every batch before it was handed out, none
					// after it may be (stopped before the next one looks).
					stop(0, nil)
					close(job.summed)
					return
				}
				close(job.summed)
				s.finish(job)
				row := job.batch.Row
				err := fn(w, &job.batch)
				s.release(job)
				if err != nil {
					stop(row, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}
