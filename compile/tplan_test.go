package compile

import (
	"bytes"
	"encoding/binary"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/zclconf/go-cty/cty"
)

func roundTrip(t *testing.T, p *plan.Plan) (*Schedule, *TPlan, []byte) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := mustCompile(t, p)
	var buf bytes.Buffer
	if err := writeTPlan(&buf, s, p, mem); err != nil {
		t.Fatal(err)
	}
	tp, err := readTPlan(bytes.NewReader(buf.Bytes()), mem)
	if err != nil {
		t.Fatal(err)
	}
	// Drain one more stream fully so every reader is released before the
	// allocator check.
	if got, want := allSlots(tp.Schedule), allSlots(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("slot streams differ: %d vs %d slots", len(got), len(want))
	}
	return s, tp, buf.Bytes()
}

func TestTPlanRoundTrip(t *testing.T) {
	for name, p := range summaryPlans(t) {
		t.Run(name, func(t *testing.T) {
			p.Variables = []*plan.Variable{{Name: "base_url", Type: cty.String, Value: cty.StringVal("http://127.0.0.1:8080/api/")}}
			s, tp, _ := roundTrip(t, p)
			got := tp.Schedule
			if got.Hash != s.Hash || got.Count != s.Count || got.Model != s.Model || got.Duration != s.Duration ||
				got.Seed != s.Seed || got.Selection != s.Selection || got.Arrival != s.Arrival || got.Think != s.Think {
				t.Fatalf("header differs:\n%+v\n%+v", got, s)
			}
			for _, f := range []struct{ a, b any }{
				{got.Targets, s.Targets}, {got.Requests, s.Requests}, {got.Entries, s.Entries},
				{got.Data, s.Data}, {got.Users, s.Users}, {got.Thresholds, s.Thresholds},
			} {
				if !reflect.DeepEqual(f.a, f.b) {
					t.Fatalf("differs after the round trip:\n%+v\n%+v", f.a, f.b)
				}
			}
			if _, h := scan(got); h != s.Hash {
				t.Fatalf("recomputed hash %s, want %s", h, s.Hash)
			}
			if !reflect.DeepEqual(Summarize(got), Summarize(s)) {
				t.Fatal("summaries differ")
			}
			for k := uint64(0); k < 100; k++ {
				if got.Pick(k) != s.Pick(k) {
					t.Fatalf("Pick(%d) differs", k)
				}
			}
			vals, err := tp.Values()
			if err != nil || !vals["base_url"].RawEquals(p.Variables[0].Value) {
				t.Fatalf("variables %v, %v", vals, err)
			}
			if !reflect.DeepEqual(tp.Sources, p.Sources) || len(tp.Sensitive) != 0 {
				t.Fatalf("sources %v sensitive %v", tp.Sources, tp.Sensitive)
			}
		})
	}
}

func TestTPlanBatches(t *testing.T) {
	// More than one record batch, and a last one that is not full.
	p := openPlan(t, []plan.Stage{constant(3*time.Second, 50000)}, 2, 1)
	_, tp, _ := roundTrip(t, p)
	if tp.Schedule.Count != 150000 {
		t.Fatalf("count %d", tp.Schedule.Count)
	}
}

func TestTPlanRedactsSensitive(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(time.Second, 10)}, 1)
	p.Variables = []*plan.Variable{
		{Name: "token", Type: cty.String, Sensitive: true, Value: cty.StringVal("s3cret")},
		{Name: "n", Type: cty.Number, Value: cty.NumberIntVal(3)},
	}
	p.Endpoints[0].Headers = []plan.Header{{Name: "Authorization", Value: plan.LiteralTemplate("Bearer s3cret")}}
	_, tp, raw := roundTrip(t, p)
	if bytes.Contains(raw, []byte("s3cret")) || bytes.Contains(raw, []byte("czNjcmV0")) {
		t.Fatal("the sensitive value was written")
	}
	if tp.Schedule.Requests != nil || !reflect.DeepEqual(tp.Sensitive, []string{"token"}) {
		t.Fatalf("requests %v sensitive %v", tp.Schedule.Requests, tp.Sensitive)
	}
	if _, ok := tp.Variables["token"]; ok || len(tp.Variables) != 1 {
		t.Fatalf("variables %v", tp.Variables)
	}
}

func TestTPlanRejectsDamage(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(time.Second, 1000)}, 1)
	_, _, raw := roundTrip(t, p)
	if _, err := ReadTPlan(bytes.NewReader(raw[:len(raw)/2])); err == nil {
		t.Error("a truncated tplan was read")
	}
	if _, err := ReadTPlan(bytes.NewReader([]byte("not arrow"))); err == nil {
		t.Error("garbage was read")
	}
}

func TestReadTPlanThresholdsReadsOnlyTheHeader(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(time.Second, 100)}, 1)
	p.Thresholds = &plan.Thresholds{P99: 250 * time.Millisecond, ErrorRate: 0.05, Abort: true}
	s := mustCompile(t, p)
	var buf bytes.Buffer
	if err := WriteTPlan(&buf, s, p); err != nil {
		t.Fatal(err)
	}
	// Cut right after the schema message: the slots are not needed.
	header := 8 + int(binary.LittleEndian.Uint32(buf.Bytes()[4:8]))
	th, err := ReadTPlanThresholds(bytes.NewReader(buf.Bytes()[:header]))
	if err != nil {
		t.Fatal(err)
	}
	if th.P99 != 250*time.Millisecond || th.ErrorRate != 0.05 {
		t.Fatalf("thresholds %+v", th)
	}
}

// Every target setting added since the header's first format survives a
// .tplan, and the file passes its own hash check on reading.
func TestTPlanKeepsTargetSettings(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(time.Second, 10)}, 1)
	u, _ := url.Parse("https://127.0.0.1:8443/")
	tg := p.Targets[0]
	tg.URL, tg.Protocol, tg.MaxStreams = u, plan.ProtocolH2, 32
	tg.SourceAddresses = []string{"127.0.0.2", "127.0.0.3"}
	tg.TLS = plan.TLS{CAFile: "/etc/ca.pem", CertFile: "/etc/c.pem", KeyFile: "/etc/k.pem", ServerName: "api.test",
		MinVersion: "1.3", MaxVersion: "1.3", NoResumption: true}
	s, tp, _ := roundTrip(t, p)
	if !reflect.DeepEqual(tp.Schedule.Targets, s.Targets) || tp.Schedule.Hash != s.Hash {
		t.Fatalf("targets after the round trip:\n%+v\nwant\n%+v", tp.Schedule.Targets, s.Targets)
	}
}

// max and the live latency settings survive a .tplan.
func TestTPlanKeepsLiveLatencyThresholds(t *testing.T) {
	th := results.Thresholds{P99: time.Second, Max: 2 * time.Second, LiveWindow: 5 * time.Second, LiveDelay: time.Second, LiveMinCount: 9, Abort: true}
	if got := fromWireThresholds(toWireThresholds(th)); !reflect.DeepEqual(got, th) {
		t.Fatalf("read back %+v, wrote %+v", got, th)
	}
}

// A request's checks survive a .tplan, and change the schedule's hash.
func TestTPlanKeepsChecks(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(time.Second, 10)}, 1)
	before := mustCompile(t, p).Hash
	p.Endpoints[0].Checks = []plan.Check{
		{Name: "ok", Subject: plan.CheckJSON, Path: "status", Op: plan.CheckEquals, Value: "ok", MinSize: -1, MaxSize: -1},
		{Name: "small", Op: plan.CheckSize, MinSize: 10, MaxSize: 1 << 20},
		{Name: "no_error", Subject: plan.CheckHeader, Path: "X-Error", Op: plan.CheckExists, MinSize: -1, MaxSize: -1},
	}
	s, tp, _ := roundTrip(t, p)
	if !reflect.DeepEqual(tp.Schedule.Requests, s.Requests) || tp.Schedule.Hash != s.Hash {
		t.Fatalf("requests after the round trip:\n%+v\nwant\n%+v", tp.Schedule.Requests, s.Requests)
	}
	if len(s.Requests[0].Checks) != 3 || s.Requests[0].Checks[1].MinSize != 10 {
		t.Fatalf("compiled checks %+v", s.Requests[0].Checks)
	}
	if s.Hash == before {
		t.Error("checks did not change the schedule's hash")
	}
}
