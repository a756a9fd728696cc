package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
)

// File is the search's record in its run directory, next to the probes'
// directories (ProbeDir).
const File = "search.json"

// ProbeDir is the directory, inside the search's run directory, holding
// probe i's (1-based) run: results.arrow, samples.arrow, plan.tplan and
// meta.json, as any run.
func ProbeDir(i int) string { return fmt.Sprintf("probe-%02d", i) }

// Record is search.json: what the search was asked, what each probe did,
// and what it found. Reports read it; the figures of each probe can be
// recomputed from the probe's rows (see Tally).
type Record struct {
	Plan  string `json:"plan"`
	Model string `json:"model"` // "open" or "closed"
	Unit  string `json:"unit"`  // "req/s" or "users"

	From      float64 `json:"from"`
	To        float64 `json:"to"`
	Growth    float64 `json:"growth"`
	Precision float64 `json:"precision"`
	MaxProbes int     `json:"max_probes"`
	HoldS     float64 `json:"hold_s"`
	WarmupS   float64 `json:"warmup_s"`
	CooldownS float64 `json:"cooldown_s"`
	// Criteria are the thresholds every probe is judged by, as "p99 <= 50ms".
	Criteria []string `json:"criteria"`

	// MaxRate is the highest value that passed; nil when none did.
	MaxRate *float64 `json:"max_rate"`
	// MinFailingRate is the lowest value that failed; nil when none did.
	MinFailingRate *float64 `json:"min_failing_rate"`
	// Converged: MinFailingRate is within Precision of MaxRate.
	Converged bool `json:"converged"`
	// Ended says why the search stopped.
	Ended string `json:"ended"`

	Start time.Time `json:"start"`
	End   time.Time `json:"end"`

	Probes []Probe `json:"probes"`
}

// Probe is one row of the probe table.
type Probe struct {
	Index    int     `json:"index"` // 1-based, in the order run
	Offered  float64 `json:"offered"`
	Achieved float64 `json:"achieved_rps"` // judged responses per second
	// Requests are the judged rows (warmup excluded), Responses those with
	// a complete response.
	Requests  int64   `json:"requests"`
	Responses int64   `json:"responses"`
	P50Ms     float64 `json:"p50_ms"` // -1 without responses
	P99Ms     float64 `json:"p99_ms"`
	ErrorRate float64 `json:"error_rate"`
	// Verdict is "pass", "fail" or "interrupted" (stopped by the user; not
	// used by the search); a live view says "running" of the probe running.
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons,omitempty"`
	// EarlyStop: a threshold was clearly broken before the hold ended.
	EarlyStop bool `json:"early_stop"`
	// HeldS is how long the probe ran past its warmup.
	HeldS        float64 `json:"held_s"`
	Dir          string  `json:"dir"`
	ScheduleHash string  `json:"schedule_hash"`
}

// Passed reports whether the probe passed.
func (p Probe) Passed() bool { return p.Verdict == VerdictPass }

// Verdicts.
const (
	VerdictPass        = "pass"
	VerdictFail        = "fail"
	VerdictInterrupted = "interrupted"
	// VerdictRunning is a live view's word for the probe running now:
	// never in search.json.
	VerdictRunning = "running"
)

// FillFigures sets a probe's figures from its tally.
func (p *Probe) FillFigures(t *Tally) {
	p.Requests, p.Responses = t.Rows, t.Responses
	p.Achieved = round3(t.Achieved())
	p.P50Ms, p.P99Ms = toMs(t.Quantile(50)), toMs(t.Quantile(99))
	p.ErrorRate = round6(t.ErrorRate())
}

func toMs(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return round3(float64(d) / 1e6)
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
func round6(v float64) float64 { return float64(int64(v*1e6+0.5)) / 1e6 }

// ProbeMeta is the results metadata (results.KeyProbe) of a probe's rows:
// enough to judge them again without search.json.
type ProbeMeta struct {
	Index    int     `json:"index"`
	Value    float64 `json:"value"`
	Model    string  `json:"model"`
	WarmupNs int64   `json:"warmup_ns"`
	HoldNs   int64   `json:"hold_ns"`
}

// ParseProbeMeta reads results.KeyProbe.
func ParseProbeMeta(s string) (ProbeMeta, error) {
	var m ProbeMeta
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return m, fmt.Errorf("probe metadata %q: %w", s, err)
	}
	return m, nil
}

// newRecord starts the record of a search of p.
func newRecord(p *plan.Plan) *Record {
	sr, ld := p.Load.Search, p.Load
	r := &Record{Plan: p.Name, Model: ld.Model, Unit: UnitOf(ld.Model), From: sr.From, To: sr.To, Growth: sr.Growth,
		Precision: sr.Precision, MaxProbes: sr.MaxProbes, HoldS: sr.Hold.Seconds(), WarmupS: sr.Warmup.Seconds(),
		CooldownS: sr.Cooldown.Seconds(), Probes: []Probe{}}
	if r.Model == "" {
		r.Model = plan.ModelOpen
	}
	if p.Thresholds != nil {
		r.Criteria = Criteria(compile.Thresholds(p.Thresholds))
	}
	return r
}

// UnitOf names what a model's search values count.
func UnitOf(model string) string {
	if model == plan.ModelClosed {
		return "users"
	}
	return "req/s"
}

// Criteria lists thresholds as the pass criteria a person reads.
func Criteria(t results.Thresholds) []string {
	var out []string
	for _, l := range limitsOf(t) {
		out = append(out, fmt.Sprintf("%s <= %v", l.name, l.max))
	}
	if t.ErrorRate > 0 {
		out = append(out, fmt.Sprintf("error_rate <= %g", t.ErrorRate))
	}
	if t.ErrorCount > 0 {
		out = append(out, fmt.Sprintf("error_count <= %d", t.ErrorCount))
	}
	if len(t.StatusCodes) > 0 {
		out = append(out, fmt.Sprintf("no status in %v", t.StatusCodes))
	}
	return out
}

// steps are the judged probes, for Next.
func (r *Record) steps() []Step {
	var out []Step
	for _, p := range r.Probes {
		if p.Verdict != VerdictInterrupted {
			out = append(out, Step{Value: p.Offered, Passed: p.Passed()})
		}
	}
	return out
}

// settle sets MaxRate, MinFailingRate and Converged from the probes.
func (r *Record) settle(b Bounds) {
	lo, hi := Interval(r.steps())
	r.MaxRate, r.MinFailingRate = nil, nil
	if lo > 0 {
		r.MaxRate = &lo
	}
	if hi > 0 {
		r.MinFailingRate = &hi
	}
	r.Converged = b.Converged(lo, hi)
}

// write saves the record atomically, so a search killed between probes
// leaves the record of every probe it finished.
func (r *Record) write(dir string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "p99 <= 50ms" stays readable
	if err := enc.Encode(r); err != nil {
		return err
	}
	tmp := filepath.Join(dir, File+".tmp")
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, File))
}

// ReadRecord reads dir/search.json; os.ErrNotExist when dir is no search.
func ReadRecord(dir string) (*Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, File), err)
	}
	return &r, nil
}
