package compile

import (
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"

	"github.com/tressi/tressi/plan"
)

// A typo (rate = 2147483648, repeat = 1073741824, a body read from a
// gigabyte file) must end in a diagnostic, not in a process that builds
// gigabytes or sends for hours. The limits sit far above real plans; the
// slot count, the one a long real run can reach, is raised with
// --max-slots (plan.Plan.MaxSlots).
const (
	// DefaultMaxSlots bounds the requests a schedule starts (sessions ×
	// requests per session): 100k req/s for 1000 s.
	DefaultMaxSlots = 100_000_000
	// MaxSessionRequests bounds the requests of one session (Σ repeat).
	MaxSessionRequests = 1_000_000
	// MaxUsers bounds the closed model's concurrent users.
	MaxUsers = 1_000_000
	// MaxBodyBytes bounds a request body's fixed bytes.
	MaxBodyBytes = plan.MaxFileBytes
)

// checkBody refuses a request whose fixed body bytes exceed MaxBodyBytes.
func checkBody(r *plan.Request, req *Request) hcl.Diagnostics {
	var n int
	for _, seg := range req.Body.Segments {
		n += len(seg)
	}
	if n <= MaxBodyBytes {
		return nil
	}
	return errorAt(r.DeclRange, "Body too large",
		fmt.Sprintf("The body renders to %s bytes; a request body holds at most %s (%d MiB). Send a smaller body, or split it across requests.",
			thousands(int64(n)), thousands(MaxBodyBytes), MaxBodyBytes>>20))
}

// sessionRequests is how many requests one of e's slots starts.
func sessionRequests(e *Entry) int64 {
	var n int64
	for _, st := range e.Steps {
		n += int64(max(st.Repeat, 1))
	}
	return n
}

// checkSession refuses a scenario whose session sends more than
// MaxSessionRequests requests.
func checkSession(sc *plan.Scenario, e *Entry) hcl.Diagnostics {
	n := sessionRequests(e)
	if n <= MaxSessionRequests {
		return nil
	}
	return errorAt(sc.DeclRange, "Too many requests per session",
		fmt.Sprintf("A session of %q sends %s requests (the sum of its steps' repeat); a session sends at most %s. Lower repeat, or start more sessions instead.",
			sc.Name, thousands(n), thousands(MaxSessionRequests)))
}

// checkOpenSize refuses an open schedule whose slots (arrivals) times the
// requests each starts exceed the plan's limit; arrivals is the stages'
// integral of the rate, known before a slot is generated.
func checkOpenSize(p *plan.Plan, s *Schedule, arrivals float64) hcl.Diagnostics {
	var most int64 = 1
	for i := range s.Entries {
		most = max(most, sessionRequests(&s.Entries[i]))
	}
	limit := p.MaxSlots
	if limit <= 0 {
		limit = DefaultMaxSlots
	}
	requests := arrivals * float64(most)
	if requests <= float64(limit) {
		return nil
	}
	what := "requests"
	if most > 1 {
		what = fmt.Sprintf("requests (%s sessions × up to %s requests each)", thousands(int64(math.Round(arrivals))), thousands(most))
	}
	return errorAt(p.Load.DeclRange, "Schedule too large",
		fmt.Sprintf("The load starts %s %s over %v; a schedule holds at most %s without --max-slots. Lower the rate or the duration, or pass --max-slots %d (or more) if you mean it.",
			thousands(int64(math.Min(requests, math.MaxInt64))), what, s.Duration, thousands(limit), int64(math.Min(math.Ceil(requests), math.MaxInt64))))
}

// checkUsers refuses a closed model with more than MaxUsers users at once.
func checkUsers(ld *plan.LoadProfile) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, st := range ld.Stages {
		if peak := math.Max(st.From, st.To); peak > MaxUsers {
			diags = append(diags, errorAt(st.DeclRange, "Too many users",
				fmt.Sprintf("The stage asks for %s concurrent users; the closed model runs at most %s. Use the open model (rate) for more arrivals.",
					thousands(int64(math.Min(peak, math.MaxInt64))), thousands(MaxUsers)))...)
		}
	}
	return diags
}

// thousands writes n with thousands separators: 1,073,741,824.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
