package results

// Figures: the one definition of a run's headline counts, which the
// report, diff (and its --fail-on gate), the thresholds' verdict and the
// live view all take from here, so no two of them disagree about one run
// (issue 27 saw report say 17 errors, 40.48 % of the requests judged, and
// diff 795 failed slots, 96.951 %, for one early-stopped run: diff had
// counted the 778 slots the stop never sent as failures).
//
// Every row is one of:
//   - not a request (NotRequest: a for_each iteration that did not exist,
//     a frame skip_if passed over): in no figure;
//   - cut off by a stop (CutOff: not_sent, interrupted): a request, but no
//     verdict on the server, so neither ok nor an error;
//   - judged: ok (a response with an expected status and no error) or an
//     error (anything else).

// Counts is the rows of a run, or of one endpoint, by outcome.
type Counts struct {
	Requests int64 // rows that are requests: Judged() + CutOff
	OK       int64 // responses with an expected status and no error
	CutOff   int64 // not_sent and interrupted rows
}

// CutOff says whether a row of kind k was cut off by a stop rather than
// judged.
func (k ErrorKind) CutOff() bool { return k == NotSent || k == Interrupted }

// Judged is the requests with a verdict: ok or an error.
func (c Counts) Judged() int64 { return c.Requests - c.CutOff }

// Errors is the judged requests that were not ok.
func (c Counts) Errors() int64 { return c.Judged() - c.OK }

// ErrorRate is Errors over Judged, 0 when nothing was judged.
func (c Counts) ErrorRate() float64 {
	if j := c.Judged(); j > 0 {
		return float64(c.Errors()) / float64(j)
	}
	return 0
}

// Add counts one row of kind k, ok or not; rows that are no request are
// left out.
func (c *Counts) Add(k ErrorKind, ok bool) {
	switch {
	case k.NotRequest():
	case k.CutOff():
		c.Requests++
		c.CutOff++
	default:
		c.Requests++
		if ok {
			c.OK++
		}
	}
}
