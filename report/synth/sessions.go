package synth

import (
	"math"

	"github.com/tressi/tressi/results"
)

// step is one step of a synthetic scenario: Repeat requests to Endpoint.
type step struct {
	Endpoint string
	Repeat   int
}

// scenarioPlans are the synthetic plan's scenarios, in a fixed order so
// endpoint indices are stable. browse lists three times (a step with
// repeat = 3), so its sessions have rows that share endpoint and slot.
var scenarioPlans = []struct {
	Name  string
	Steps []step
}{
	{"browse", []step{{"browse.login", 1}, {"browse.list", 3}, {"browse.logout", 1}}},
	{"buy", []step{{"buy.login", 1}, {"buy.pay", 1}}},
}

// Scenarios is what Spec.Meta writes as Meta.Scenarios when Spec.Sessions
// is set: each scenario's step endpoints in order.
var Scenarios = func() map[string][]string {
	m := map[string][]string{}
	for _, sc := range scenarioPlans {
		for _, st := range sc.Steps {
			m[sc.Name] = append(m[sc.Name], st.Endpoint)
		}
	}
	return m
}()

// sessionEndpoints extends Endpoints with the scenario steps, in
// scenarioPlans order.
var sessionEndpoints = func() []string {
	eps := append([]string{}, Endpoints...)
	for _, sc := range scenarioPlans {
		for _, st := range sc.Steps {
			eps = append(eps, st.Endpoint)
		}
	}
	return eps
}()

func endpointIndex(name string) uint16 {
	for i, e := range sessionEndpoints {
		if e == name {
			return uint16(i)
		}
	}
	panic("synth: unknown endpoint " + name)
}

// Failure rates of synthetic sessions: a session's login capture fails (its
// second step cannot be rendered, so that step's requests are recorded as
// capture_failed without being sent and the session stops), a request times
// out, or a response has status 500 (the session goes on but has failed).
const (
	captureFailRate = 0.08
	timeoutRate     = 0.01
	serverErrorRate = 0.02
	sessionShare    = 0.25 // of the slots, when Spec.Sessions is set
)

// isSession says whether slot k of a run with seed is a scenario session.
func isSession(seed, k uint64) bool {
	g := rng{s: seed*0x9e3779b97f4a7c15 ^ k ^ 0x5e551045}
	return g.float() < sessionShare
}

// SessionRows is slot k's rows as one session of a scenario: each step's
// requests due when the previous response arrived plus a think time, as a
// closed-model executor schedules them.
func SessionRows(seed uint64, rate float64, k uint64) []results.Row {
	g := rng{s: (seed*0x2545f4914f6cdd1d ^ k) + 0x51ed27}
	g.next()
	sc := scenarioPlans[0]
	if g.float() < 0.4 {
		sc = scenarioPlans[1]
	}
	captureFails := g.float() < captureFailRate
	due := int64(float64(k) * 1e9 / rate)
	var rows []results.Row
	for i, st := range sc.Steps {
		for range st.Repeat {
			row := results.Row{Slot: k, Scheduled: due, Endpoint: endpointIndex(st.Endpoint), BytesOut: 120}
			if captureFails && i == 1 {
				row.Sent, row.Latency, row.Service, row.Error, row.BytesOut = -1, -1, -1, results.CaptureFailed, 0
				rows = append(rows, row)
				continue
			}
			queue := int64(g.next() % 50_000)
			row.Sent = due + queue
			n := math.Sqrt(-2*math.Log(1-g.float())) * math.Cos(2*math.Pi*g.float())
			lat := int64(3e6*math.Exp(0.6*n)) + queue
			think := int64(g.next() % 20e6)
			if g.float() < timeoutRate {
				row.Error, row.Latency, row.Service = results.Timeout, -1, -1
				rows = append(rows, row)
				due = row.Sent + 100e6 + think // the step gave up after its timeout
				continue
			}
			row.Latency, row.Service = lat, lat-queue
			row.Status = 200
			if g.float() < serverErrorRate {
				row.Status = 500
			}
			row.BytesIn = uint32(100 + g.next()%900)
			rows = append(rows, row)
			due += lat + think
		}
		if captureFails && i == 1 {
			break
		}
	}
	return rows
}
