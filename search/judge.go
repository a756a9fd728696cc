package search

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/tressi/tressi/results"
)

// Judge decides one probe: live, whether a threshold is already clearly
// broken (so a failing probe does not cost its whole hold), and at the end,
// whether the probe passed.
//
// A probe is stopped early only on evidence that does not go away with
// more samples:
//   - certain: in the open model the schedule says how many requests the
//     hold will judge (n). A request due more than L ago that has not been
//     answered already has a corrected latency above L, so once the answered
//     ones above L plus those waiting past L exceed (1 − q) × n, the q-th
//     percentile is above L however the rest of the hold goes. The same
//     goes for error_rate (failures > rate × n), error_count and
//     status_codes.
//   - statistical: with at least 10 / (1 − q) judged responses (1,000 for
//     p99), the share above L is above 1 − q with 3 standard deviations of
//     confidence (the Wilson score interval's lower end); likewise for the
//     error rate with at least 10 / rate outcomes. A few slow first
//     requests can never stop a probe.
//
// The final verdict applies the thresholds to the judged rows exactly as
// exec applies them to a run: percentiles over complete responses,
// error_rate as failed ÷ outcomes.
type Judge struct {
	th     results.Thresholds
	closed bool

	mu    sync.Mutex
	tally *Tally
	// seen counts the rows exec's completed counter counts: every outcome
	// of every request, warmup included (not_sent rows are not outcomes).
	seen int64
	// seenBy counts judged outcomes by due instant, in buckets of width ns,
	// for "how many requests due before x have been answered".
	seenBy []int64
	width  int64
	// dues are the probe's slot instants in order (open model with one
	// request per slot); nil when the certain rules cannot be applied.
	dues []int64
	// holdSlots is how many slots the hold judges; 0 when unknown.
	holdSlots int64
	firstHold int
}

// maxDues bounds the slot instants a judge keeps for the certain rules
// (8 bytes each).
const maxDues = 4 << 20

// NewJudge judges a probe with the plan's thresholds. dues are the probe's
// slot instants (open model, endpoints only), nil otherwise; warmup and
// total are the probe's warmup and warmup + hold.
func NewJudge(th results.Thresholds, closed bool, dues []int64, warmup, total time.Duration) *Judge {
	j := &Judge{th: th, closed: closed, tally: NewTally(th, warmup)}
	j.width = max(int64(time.Millisecond), int64(total)/100_000)
	j.seenBy = make([]int64, int64(total)/j.width+2)
	if len(dues) > 0 && len(dues) <= maxDues {
		j.dues = dues
		j.firstHold = sort.Search(len(dues), func(i int) bool { return dues[i] >= int64(warmup) })
		j.holdSlots = int64(len(dues) - j.firstHold)
	}
	return j
}

// Observe takes one row from the recorder (exec.Options.Observe).
func (j *Judge) Observe(row *results.Row, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if row.Error != results.NotSent {
		j.seen++
		if j.tally.Judged(row) {
			b := min(max(row.Scheduled/j.width, 0), int64(len(j.seenBy)-1))
			j.seenBy[b]++
		}
	}
	j.tally.Add(row, ok)
}

// Watch is exec.Options.Watch: a non-empty answer stops the probe, and
// says which threshold is already broken and on what evidence.
func (j *Judge) Watch(now int64, completed func() int64) string {
	if !j.th.Abort {
		return "" // thresholds.abort = false: every probe runs its whole hold
	}
	j.mu.Lock()
	t := j.tally
	seen := j.seen
	var waiting []int64
	if j.dues != nil {
		waiting = make([]int64, len(t.limits))
		for i, l := range t.limits {
			waiting[i] = j.waitingPast(now - int64(l.max))
		}
	}
	reason := j.liveStatus()
	j.mu.Unlock()
	if reason != "" {
		return reason
	}
	// Outcomes exec counted that the recorder has not handed over yet may
	// be any of the waiting requests: subtract them all. Reading completed
	// after seen keeps this a lower bound.
	unseen := max(completed()-seen, 0)
	j.mu.Lock()
	defer j.mu.Unlock()
	for i, l := range t.limits {
		allowed := 1 - l.q/100
		over, n := t.Over[i], t.Responses
		if waiting != nil {
			late := max(waiting[i]-unseen, 0)
			if bound := over + late; float64(bound) > allowed*float64(j.holdSlots) {
				return fmt.Sprintf("%s: %d of the hold's %d requests (%.1f%%) already took longer than %v, more than the %.3g%% %s allows",
					l.name, bound, j.holdSlots, 100*float64(bound)/float64(j.holdSlots), l.max, 100*allowed, l.name)
			}
			over, n = over+late, n+late
		}
		if float64(n) >= 10/allowed && wilsonLower(over, n, 3) > allowed {
			return fmt.Sprintf("%s: %d of %d judged requests (%.1f%%) took longer than %v; %s allows %.3g%% (3σ lower bound %.2f%%)",
				l.name, over, n, 100*float64(over)/float64(n), l.max, l.name, 100*allowed, 100*wilsonLower(over, n, 3))
		}
	}
	return ""
}

// liveStatus checks the count-based thresholds; j.mu is held.
func (j *Judge) liveStatus() string {
	t := j.tally
	for code, n := range t.StatusHits {
		if n > 0 {
			return fmt.Sprintf("status_codes: got status %d", code)
		}
	}
	if j.th.ErrorCount > 0 && t.Failed > j.th.ErrorCount {
		return fmt.Sprintf("error_count: %d failed requests > %d", t.Failed, j.th.ErrorCount)
	}
	if r := j.th.ErrorRate; r > 0 {
		if j.holdSlots > 0 && float64(t.Failed) > r*float64(j.holdSlots) {
			return fmt.Sprintf("error_rate: %d of the hold's %d requests failed already, more than %.3g allows", t.Failed, j.holdSlots, r)
		}
		if float64(t.Counted) >= math.Max(20, 10/r) && wilsonLower(t.Failed, t.Counted, 3) > r {
			return fmt.Sprintf("error_rate: %d of %d judged requests failed (%.3g; 3σ lower bound %.3g) > %.3g",
				t.Failed, t.Counted, t.ErrorRate(), wilsonLower(t.Failed, t.Counted, 3), r)
		}
	}
	return ""
}

// waitingPast is how many judged slots due at or before x have no outcome
// the recorder has seen; j.mu is held.
func (j *Judge) waitingPast(x int64) int64 {
	if x < j.tally.Warmup {
		return 0
	}
	due := int64(sort.Search(len(j.dues), func(i int) bool { return j.dues[i] > x }) - j.firstHold)
	if due <= 0 {
		return 0
	}
	// Buckets up to and including x's: may count outcomes due a little
	// after x, which only makes the bound smaller.
	var answered int64
	last := min(x/j.width, int64(len(j.seenBy)-1))
	for b := int64(0); b <= last; b++ {
		answered += j.seenBy[b]
	}
	return max(due-answered, 0)
}

// Figures is p with the figures of the rows judged so far: a live view's
// row of the probe running.
func (j *Judge) Figures(p Probe) Probe {
	j.mu.Lock()
	defer j.mu.Unlock()
	p.FillFigures(j.tally)
	return p
}

// Verdict is the final judgement of a probe.
type Verdict struct {
	Passed  bool
	Reasons []string // every threshold that failed, with its figures
}

// Final judges the probe once exec.Run returned; earlyStop is the reason a
// Watch gave, if it stopped the probe.
func (j *Judge) Final(earlyStop string) (Verdict, *Tally) {
	j.mu.Lock()
	defer j.mu.Unlock()
	v := verdictOf(j.th, j.tally)
	if earlyStop != "" {
		v.Passed = false
		v.Reasons = append([]string{"stopped early: " + earlyStop}, v.Reasons...)
	}
	return v, j.tally
}

// verdictOf applies the thresholds to a tally.
func verdictOf(th results.Thresholds, t *Tally) Verdict {
	var v Verdict
	for i, l := range t.limits {
		q := t.Quantile(l.q)
		switch {
		case q < 0:
			v.Reasons = append(v.Reasons, l.name+": no responses to measure")
		case q > l.max:
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s: %v > %v (%d of %d responses slower)", l.name, q.Round(time.Microsecond), l.max, t.Over[i], t.Responses))
		}
	}
	if th.ErrorRate > 0 && t.ErrorRate() > th.ErrorRate {
		v.Reasons = append(v.Reasons, fmt.Sprintf("error_rate: %.4g > %.4g (%d of %d)", t.ErrorRate(), th.ErrorRate, t.Failed, t.Counted))
	}
	if th.ErrorCount > 0 && t.Failed > th.ErrorCount {
		v.Reasons = append(v.Reasons, fmt.Sprintf("error_count: %d > %d", t.Failed, th.ErrorCount))
	}
	codes := make([]int, 0, len(t.StatusHits))
	for c, n := range t.StatusHits {
		if n > 0 {
			codes = append(codes, c)
		}
	}
	sort.Ints(codes)
	for _, c := range codes {
		v.Reasons = append(v.Reasons, fmt.Sprintf("status_codes: %d responses with status %d", t.StatusHits[c], c))
	}
	if t.Counted == 0 {
		v.Reasons = append(v.Reasons, "no request of the hold got an outcome")
	}
	v.Passed = len(v.Reasons) == 0
	return v
}
