package report

// merge folds o, a tally of other rows of the same inputs (another
// worker's), into t. Every figure of a tally is a sum, a minimum, a
// maximum or a histogram, so the order rows were counted in does not
// matter.
func (t *tally) merge(o *tally) error {
	for _, oe := range o.endpoints {
		e, ok := t.byName[oe.name]
		if !ok {
			t.byName[oe.name] = oe
			t.endpoints = append(t.endpoints, oe)
			continue
		}
		e.merge(oe)
	}
	for k, n := range o.errorKinds {
		t.errorKinds[k] += n
	}
	t.service.Merge(o.service)
	t.sendLag.Merge(o.sendLag)
	t.series.merge(&o.series)
	if err := t.sessions.merge(o.sessions); err != nil {
		return err
	}
	t.sent += o.sent
	t.completed += o.completed
	t.bytesOut += o.bytesOut
	t.bytesIn += o.bytesIn
	t.opened += o.opened
	t.connectNs += o.connectNs
	t.connectMax = max(t.connectMax, o.connectMax)
	t.firstDue = min(t.firstDue, o.firstDue)
	t.lastEnd = max(t.lastEnd, o.lastEnd)
	t.rows += o.rows
	return nil
}

func (e *endpointTally) merge(o *endpointTally) {
	e.requests += o.requests
	e.ok += o.ok
	e.unjudged += o.unjudged
	e.grpc = e.grpc || o.grpc
	for st, n := range o.status {
		e.status[st] += n
	}
	for st, n := range o.oddStatus {
		if e.oddStatus == nil {
			e.oddStatus = map[uint16]int64{}
		}
		e.oddStatus[st] += n
	}
	e.latency.Merge(o.latency)
}

func (s *series) merge(o *series) {
	for len(s.secs) < len(o.secs) {
		s.secs = append(s.secs, secondTally{})
	}
	s.cur, s.curStart, s.curEnd = nil, 0, 0 // append may have moved secs
	for i := range o.secs {
		a, b := &s.secs[i], &o.secs[i]
		a.completed += b.completed
		a.errors += b.errors
		a.latency.merge(&b.latency)
	}
}

func (h *compactHistogram) merge(o *compactHistogram) {
	for b, blk := range o.blocks {
		if blk == nil {
			continue
		}
		mine := h.blocks[b]
		if mine == nil {
			mine = h.block(b)
		}
		for s, c := range blk {
			mine[s] += c
		}
	}
}

// merge folds another tracker's sessions into st: rows of one session
// may have been counted by different workers. Both trackers were given
// the same scenarios (use), so their indices agree.
func (st *sessionTracker) merge(o *sessionTracker) error {
	for slot, s := range o.open {
		mine, seen := st.open[slot]
		if !seen {
			st.open[slot] = s
			continue
		}
		if mine.scenario != s.scenario {
			return st.mixed(slot, mine.scenario, s.scenario)
		}
		mine.start = min(mine.start, s.start)
		mine.end = max(mine.end, s.end)
		mine.requests += s.requests
		mine.failed = mine.failed || s.failed
		st.open[slot] = mine
	}
	return nil
}
