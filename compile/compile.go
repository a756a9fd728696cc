package compile

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// Compile turns a validated plan into its schedule. It is pure: the same
// plan always gives the same schedule and hash. Diagnostics point at the
// plan's declaration ranges; the schedule is nil when they hold errors.
func Compile(p *plan.Plan) (*Schedule, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	if p.Load == nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Missing load block",
			Detail: "A plan needs a load block saying how much traffic to start."}}
	}
	if p.Load.Search != nil {
		return nil, searchPlanError(p)
	}
	ld := p.Load
	s := &Schedule{
		Name:       p.Name,
		Seed:       ld.Seed,
		Selection:  ld.Selection,
		Think:      ld.Think,
		Thresholds: results.Thresholds{Abort: true},
		Secrets:    p.Secrets,
	}
	if s.Selection == "" {
		s.Selection = plan.SelectWeighted
	}
	if p.Thresholds != nil {
		s.Thresholds = Thresholds(p.Thresholds)
	}
	for _, st := range ld.Stages {
		s.Duration += st.Duration
	}
	if s.Duration > MaxDue || s.Duration < 0 {
		diags = append(diags, errorAt(ld.DeclRange, "Schedule too long",
			fmt.Sprintf("The stages add up to %v; a schedule holds at most %v.", s.Duration, time.Duration(MaxDue)))...)
	}

	diags = append(diags, buildTable(p, s)...)
	if len(s.Entries) == 0 && !diags.HasErrors() {
		diags = append(diags, errorAt(ld.DeclRange, "Nothing to send",
			"The plan declares no endpoint and no scenario.")...)
	}
	if len(s.Entries) > MaxEntries {
		diags = append(diags, errorAt(ld.DeclRange, "Too many endpoints and scenarios",
			fmt.Sprintf("The plan has %d endpoints and scenarios; a schedule selects between at most %d.",
				len(s.Entries), MaxEntries))...)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	weights := make([]int, len(s.Entries))
	for i, e := range s.Entries {
		weights[i] = e.Weight
	}
	sel, err := newSelector(s.Selection, weights, s.Seed)
	if err != nil {
		return nil, append(diags, errorAt(ld.DeclRange, "Invalid selection", err.Error())...)
	}
	s.sel = sel

	switch ld.Model {
	case plan.ModelClosed:
		s.Model = Closed
		if d := checkUsers(ld); d.HasErrors() {
			return nil, append(diags, d...)
		}
		s.Users = userSpans(ld.Stages)
		s.gen = noSlots{}
	case plan.ModelOpen, "":
		s.Model = Open
		s.Arrival = ld.Arrival
		if s.Arrival == "" {
			s.Arrival = plan.ArrivalUniform
		}
		if s.Arrival != plan.ArrivalUniform && s.Arrival != plan.ArrivalPoisson {
			diags = append(diags, errorAt(ld.DeclRange, "Unknown arrival",
				fmt.Sprintf("arrival %q is neither %q nor %q.", s.Arrival, plan.ArrivalUniform, plan.ArrivalPoisson))...)
		}
		for _, st := range ld.Stages {
			if !(st.From >= 0 && st.To >= 0) || math.IsInf(st.From, 0) || math.IsInf(st.To, 0) {
				diags = append(diags, errorAt(st.DeclRange, "Invalid rate",
					fmt.Sprintf("A stage's rates must be finite and ≥ 0 (got %v to %v).", st.From, st.To))...)
			}
		}
		if diags.HasErrors() {
			return nil, diags
		}
		stages, total := makeStages(ld.Stages)
		if d := checkOpenSize(p, s, total); d.HasErrors() {
			return nil, append(diags, d...)
		}
		s.gen = &openGen{stages: stages, total: total, poisson: s.Arrival == plan.ArrivalPoisson,
			seed: s.Seed, sel: sel, caps: newCapPlans(ld.Stages, s.Entries, sel.share)}
	default:
		return nil, append(diags, errorAt(ld.DeclRange, "Unknown load model",
			fmt.Sprintf("model %q is neither %q nor %q.", ld.Model, plan.ModelOpen, plan.ModelClosed))...)
	}

	st, hash := scan(s)
	s.Count, s.Hash, s.stats = st.count, hash, st
	if s.Model == Open {
		diags = append(diags, idleEntryWarnings(p, s)...)
	}
	return s, diags
}

// Pick is the entry that the k-th selection starts: in the closed model the
// k-th session (scenarios) or request (endpoints) in selection order. It is
// a pure function of k, so workers pick without sharing state.
// Schedules from Compile and ReadTPlan pick in O(1); one built by hand
// derives its selector on each call.
func (s *Schedule) Pick(k uint64) int {
	sel := s.sel
	if sel == nil {
		sel = s.newSelector()
	}
	return sel.pick(k)
}

// Picker is Pick with the selector derived once, also for a schedule built
// by hand: what a hot loop calls.
func (s *Schedule) Picker() func(k uint64) int {
	sel := s.sel
	if sel == nil {
		sel = s.newSelector()
	}
	return sel.pick
}

// newSelector builds the schedule's selector from its entries' weights,
// falling back to round-robin when the weights cannot form a cycle.
func (s *Schedule) newSelector() *selector {
	weights := make([]int, len(s.Entries))
	for i, e := range s.Entries {
		weights[i] = max(e.Weight, 1)
	}
	sel, err := newSelector(s.Selection, weights, s.Seed)
	if err != nil {
		sel, _ = newSelector(plan.SelectRoundRobin, weights, s.Seed)
	}
	return sel
}

// idleEntryWarnings flags entries the open schedule never starts, e.g. a
// max_rate or weight too small for the schedule's length.
func idleEntryWarnings(p *plan.Plan, s *Schedule) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if s.Count == 0 {
		return warningAt(p.Load.DeclRange, "Empty schedule",
			"The stages start no request: their rates integrate to less than one arrival.")
	}
	ranges := entryRanges(p)
	for i, n := range s.stats.perEntry {
		if n > 0 || s.Entries[i].Weight == 0 {
			continue // weight 0: switched off on purpose
		}
		why := "its weight is too small for this schedule"
		if s.Entries[i].MaxRate > 0 {
			why = fmt.Sprintf("its max_rate %v with its weight leaves it no slot", s.Entries[i].MaxRate)
		}
		diags = append(diags, warningAt(ranges[i], "Entry never scheduled",
			quote(s.Entries[i].Name)+" starts nothing: "+why+".")...)
	}
	return diags
}

func entryRanges(p *plan.Plan) []hcl.Range {
	var r []hcl.Range
	for _, e := range p.Endpoints {
		r = append(r, e.DeclRange)
	}
	for _, sc := range p.Scenarios {
		r = append(r, sc.DeclRange)
	}
	return r
}

// buildTable fills targets, data, the request table and the entries.
func buildTable(p *plan.Plan, s *Schedule) hcl.Diagnostics {
	var diags hcl.Diagnostics
	bases := make([]string, len(p.Targets))
	targetIndex := map[string]int{}
	for i, t := range p.Targets {
		rt, base, d := resolveTarget(t)
		diags = append(diags, d...)
		resolveGRPC(t, &rt, p)
		s.Targets = append(s.Targets, rt)
		bases[i] = base
		targetIndex[t.Name] = i
	}
	dataIndex := map[string]int{}
	for i, d := range p.Data {
		s.Data = append(s.Data, Data{Name: d.Name, Columns: d.Columns, Rows: d.Rows, Random: d.Order == plan.DataRandom})
		dataIndex[d.Name] = i
	}
	var ids uint32
	addRequest := func(name string, r *plan.Request, scope requestScope) int {
		ti, ok := targetIndex[r.Target]
		if !ok && r.Target == "" && len(p.Targets) == 1 {
			ti, ok = 0, true
		}
		if !ok {
			diags = append(diags, errorAt(r.DeclRange, "Unknown target",
				"No target is named "+quote(r.Target)+".")...)
			return -1
		}
		req, d := buildRequest(name, r, ti, &s.Targets[ti], bases[ti], p.Targets[ti].Headers, scope, &ids)
		req.Digest = digestAuth(r, p.Targets[ti])
		diags = append(diags, d...)
		diags = append(diags, checkBody(r, &req)...)
		s.Requests = append(s.Requests, req)
		return len(s.Requests) - 1
	}
	for _, ep := range p.Endpoints {
		e := Entry{Name: ep.Name, Weight: ep.Weight, MaxRate: ep.MaxRate, Data: -1, Cookies: ep.Cookies}
		var scope requestScope
		if di, ok := dataIndex[ep.Data]; ok && ep.Data != "" {
			e.Data = di
			scope.columns = s.Data[di].Columns
		}
		ri := addRequest(ep.Name, &ep.Request, scope)
		e.Steps = []Step{{Name: ep.Name, Request: ri, Repeat: 1}}
		if ri >= 0 {
			e.Connection = s.Targets[s.Requests[ri].Target].Connection
		}
		s.Entries = append(s.Entries, e)
	}
	for _, sc := range p.Scenarios {
		e := Entry{Name: sc.Name, Weight: sc.Weight, Scenario: true, Data: -1, Think: sc.Think, Cookies: entryCookies(sc)}
		scope := requestScope{captures: captureSlots(sc)}
		if sc.Data != "" {
			di, ok := dataIndex[sc.Data]
			if !ok {
				diags = append(diags, errorAt(sc.DeclRange, "Unknown data block",
					"No data block is named "+quote(sc.Data)+".")...)
			} else {
				e.Data = di
				scope.columns = s.Data[di].Columns
			}
		}
		var build func(st *plan.Step) Step
		build = func(st *plan.Step) Step {
			name := sc.Name + "." + st.Name
			ri := -1
			if st.Kind == plan.StepHTTP || st.Kind == plan.StepCallOpen || st.Kind.Rows() {
				ri = addRequest(name, &st.Request, scope)
			}
			if ri >= 0 && len(s.Requests[ri].Expect) == 0 {
				// What a connect and a close answer with is not an HTTP
				// status: the upgrade's 101, the server's close code.
				switch st.Kind {
				case plan.StepConnect:
					s.Requests[ri].Expect = []int{101}
				case plan.StepClose:
					code := ws1005
					if st.WebSocket != nil && st.WebSocket.CloseCode != 0 {
						code = st.WebSocket.CloseCode
					}
					s.Requests[ri].Expect = []int{code}
				}
			}
			step := Step{Name: name, Request: ri, Repeat: st.Repeat, Think: st.Think, ThinkMax: st.ThinkMax, Kind: st.Kind}
			if step.Repeat <= 0 {
				step.Repeat = 1
			}
			if step.Think < 0 {
				step.Think = sc.Think
			}
			for _, c := range st.Captures {
				step.Captures = append(step.Captures, Capture{Name: c.Name, Kind: CaptureKind(c.Kind), Expr: c.Expr, Index: scope.captures[c.Name]})
			}
			var d hcl.Diagnostics
			step.WebSocket, d = buildWebSocketStep(st, scope, &ids, build)
			diags = append(diags, d...)
			if st.Call != nil {
				step.WebSocket, d = buildCallStep(st, scope, &ids)
				diags = append(diags, d...)
			}
			return step
		}
		for _, st := range sc.Steps {
			e.Steps = append(e.Steps, build(st))
		}
		// A session that connects is a WebSocket session; HTTP steps may
		// come before its connect.
		e.WebSocket = slices.ContainsFunc(sc.Steps, func(st *plan.Step) bool { return st.Kind == plan.StepConnect })
		diags = append(diags, checkSession(sc, &e)...)
		e.Connection = sc.Connection
		if e.Connection == "" && len(e.Steps) > 0 && e.Steps[0].Request >= 0 {
			e.Connection = s.Targets[s.Requests[e.Steps[0].Request].Target].Connection
		}
		s.Entries = append(s.Entries, e)
	}
	return diags
}

// ws1005 is the close code recorded when the server's close frame has none
// (RFC 6455 §7.1.5), which is its answer to a close sent without one.
const ws1005 = 1005

// captureSlots numbers a scenario's capture names in order of first
// capture, so the executor keeps a session's captured values in a slice.
func captureSlots(sc *plan.Scenario) map[string]int {
	m := map[string]int{}
	var walk func(steps []*plan.Step)
	walk = func(steps []*plan.Step) {
		for _, st := range steps {
			for _, c := range st.Captures {
				if _, ok := m[c.Name]; !ok {
					m[c.Name] = len(m)
				}
			}
			if st.WebSocket != nil {
				walk(st.WebSocket.Steps)
			}
		}
	}
	walk(sc.Steps)
	return m
}

// scanStats is what one pass over the slot stream learns.
type scanStats struct {
	count    int64
	perEntry []int64
	bucket   int64   // timeline bucket width in ns
	buckets  []int64 // slots due in each bucket
}

// scanBatch is the number of slots a pass handles at once: large enough to
// amortise calls, small enough (512 KiB) to stay in cache.
const scanBatch = 1 << 16

// timelineBucket is one second, or a sixtieth of longer schedules.
func timelineBucket(d time.Duration) int64 {
	if d <= time.Minute {
		return int64(time.Second)
	}
	return (int64(d) + 59) / 60
}

// scan streams the schedule once, hashing it and counting slots per entry
// and per timeline bucket.
func scan(s *Schedule) (*scanStats, string) { return scanSource(s, s.Slots()) }

// scanSource is scan over a given stream of s.
func scanSource(s *Schedule, src SlotSource) (*scanStats, string) {
	st := &scanStats{perEntry: make([]int64, len(s.Entries)), bucket: timelineBucket(s.Duration)}
	nb := int64(s.Duration)/st.bucket + 1
	if int64(s.Duration)%st.bucket == 0 && s.Duration > 0 {
		nb--
	}
	st.buckets = make([]int64, nb)
	h := newSlotHasher(s)
	buf := make([]Slot, scanBatch)
	for {
		n := src.Next(buf)
		if n == 0 {
			break
		}
		h.add(buf[:n])
		for _, sl := range buf[:n] {
			st.perEntry[sl.Entry()]++
			b := sl.Due() / st.bucket
			if b >= nb {
				b = nb - 1
			}
			st.buckets[b]++
		}
		st.count += int64(n)
	}
	return st, h.sum(st.count)
}
