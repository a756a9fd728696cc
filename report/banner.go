package report

import (
	"fmt"
	"strings"
)

// banner is the first thing a report says when its figures are not those
// of a whole, finished run: a partial run (rows missing), or one stopped
// before its schedule's end (Ctrl-C, a threshold). Without it such a run
// reads like a complete one that went badly.
func (r *Report) banner() *section {
	s := &r.Summary
	var title string
	var notes []string
	status, _ := s.Run.Environment["exit_status"].(string)
	cutOff := fmt.Sprintf("%s slots were never sent and %s requests were cut off in flight (not_sent, interrupted): they are not errors, and the error rate is over the other requests, those judged",
		count(s.NotSent), count(s.Interrupted))
	switch status {
	case "interrupted":
		title = "INTERRUPTED RUN: stopped before the end of its schedule (Ctrl-C or SIGTERM)"
		notes = append(notes, cutOff, "the figures cover the part of the schedule that ran; run it again to measure the whole")
	case "overran":
		title = "OVERRAN: requests were still running at the schedule's end plus the grace, and were cut off there"
		notes = append(notes, cutOff, "sessions (or timeouts) longer than the schedule: lengthen the last stage, or shorten the sessions")
	case "early_exit":
		title = "STOPPED EARLY: a threshold ended the run before the end of its schedule"
		if why := earlyExitDetail(s); why != "" {
			title = "STOPPED EARLY: " + why + " ended the run before the end of its schedule"
		}
		notes = append(notes, cutOff)
	}
	if late := behindNote(s); late != "" {
		if title == "" {
			title = late
		} else {
			notes = append(notes, late)
		}
	}
	if s.Partial {
		p := "PARTIAL RUN: the results hold less than the run (see Warnings); the figures cover only what was recorded"
		if status == statusRunning && len(s.Shards) == 1 {
			if _, live := runningHere(s.Run.Environment); live {
				p = "RUN IN PROGRESS: the run is still going on (see Warnings); the figures cover what it has recorded so far"
			}
		}
		if title == "" {
			title = p
		} else {
			notes = append([]string{p}, notes...)
		}
	}
	if title == "" {
		return nil
	}
	return &section{Title: title, Notes: notes}
}

// behindScheduleMs is the send lag p99 past which the generator fell
// behind its schedule (a burst on a busy machine lags a few ms).
const behindScheduleMs = 50

// behindNote says, with the lag figures, when requests went out late, and
// why: requests that waited for a connection (meta.json's
// connection_waits) are the plan's connections, not a slow generator.
func behindNote(s *Summary) string {
	l := s.SendLag
	if l.Count == 0 || l.P99 <= behindScheduleMs {
		return ""
	}
	if waits, _ := s.Run.Environment["connection_waits"].(float64); waits > 0 {
		return fmt.Sprintf("QUEUED FOR CONNECTIONS: %s requests waited for a connection, every one of their target's connections being busy, so they went out late (send lag p50 %s, p99 %s, max %s). "+
			"That is the plan's connections, not the generator's CPU: raise the target's connections (tressi plan warns when sessions or users must queue), "+
			"or lower the rate; corrected latencies include the wait",
			count(int64(waits)), lagText(l.P50), lagText(l.P99), lagText(l.Max))
	}
	return fmt.Sprintf("BEHIND SCHEDULE: the generator sent requests late (send lag p50 %s, p99 %s, max %s): the offered load was not delivered on time, "+
		"but corrected latencies count from each due instant, so they are still honest. Give the generator more CPU, or lower the rate",
		lagText(l.P50), lagText(l.P99), lagText(l.Max))
}

func lagText(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2f s", ms/1000)
	}
	return fmt.Sprintf("%.1f ms", ms)
}

// earlyExitDetail is what stopped a run early, as meta.json's
// threshold_failures holds it ("early_exit: error_count: 2 errors > 1");
// empty when it does not say.
func earlyExitDetail(s *Summary) string {
	failures, _ := s.Run.Environment["threshold_failures"].([]any)
	for _, f := range failures {
		if str, ok := f.(string); ok {
			if why, ok := strings.CutPrefix(str, "early_exit: "); ok {
				return why
			}
		}
	}
	return ""
}
