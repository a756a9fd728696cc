package compile

import (
	"net/url"
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
)

func TestResolveTarget(t *testing.T) {
	tests := []struct {
		url, addr, host, scheme, base string
	}{
		{"http://example.com", "example.com:80", "example.com", "http", ""},
		{"https://example.com/", "example.com:443", "example.com", "https", ""},
		{"http://127.0.0.1:8080/api/v1/", "127.0.0.1:8080", "127.0.0.1:8080", "http", "/api/v1"},
		{"HTTPS://example.com:443/x", "example.com:443", "example.com", "https", "/x"},
		{"http://[::1]:9000", "[::1]:9000", "[::1]:9000", "http", ""},
		{"http://[::1]", "[::1]:80", "[::1]", "http", ""},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.url)
		got, base, diags := resolveTarget(&plan.Target{Name: "t", URL: u})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tt.url, diags)
		}
		if got.Addr != tt.addr || got.Host != tt.host || got.Scheme != tt.scheme || base != tt.base {
			t.Errorf("%s: got %q %q %q base %q", tt.url, got.Addr, got.Host, got.Scheme, base)
		}
		if got.Connections != plan.DefaultConnections || got.Connection != plan.ConnectionPool || got.Timeout != plan.DefaultTimeout {
			t.Errorf("%s: defaults not applied: %+v", tt.url, got)
		}
	}
	u, _ := url.Parse("ftp://example.com")
	if _, _, diags := resolveTarget(&plan.Target{Name: "t", URL: u}); !diags.HasErrors() {
		t.Error("ftp accepted")
	}
}

func lit(s string) plan.Part { return plan.Part{Literal: s} }
func hole(h plan.Hole) plan.Part {
	return plan.Part{Hole: &h}
}

func TestSpliceConversion(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(time.Second, 10)}, 1)
	p.Data = []*plan.Data{{Name: "users", Columns: []string{"id", "username", "password"}, Rows: [][]string{{"1", "a\"b", "p"}}}}
	p.Scenarios = []*plan.Scenario{{
		Name: "login", Weight: 1, Data: "users", Think: 50 * time.Millisecond,
		Steps: []*plan.Step{
			{Name: "login", Think: -1, Request: plan.Request{Target: "api", Method: "POST", Path: plan.LiteralTemplate("/login"),
				Body: plan.Template{Parts: []plan.Part{lit(`{"user":"`), hole(plan.Hole{Kind: plan.HoleRow, Name: "username", JSONEscape: true}),
					lit(`","id":`), hole(plan.Hole{Kind: plan.HoleRandomInt, Min: 1, Max: 9}), lit(`}`)}}},
				Captures: []plan.Capture{{Name: "token", Kind: plan.CaptureJSON, Expr: "token"}}},
			{Name: "me", Repeat: 3, Think: 10 * time.Millisecond, Request: plan.Request{Target: "api", Path: plan.Template{Parts: []plan.Part{
				lit("me/"), hole(plan.Hole{Kind: plan.HoleUUID}), lit("/"), hole(plan.Hole{Kind: plan.HoleUUID})}},
				Headers: []plan.Header{
					{Name: "authorization", Value: plan.Template{Parts: []plan.Part{lit("Bearer "), hole(plan.Hole{Kind: plan.HoleCaptured, Name: "token"})}}},
					{Name: "user-agent", Value: plan.LiteralTemplate("mine")},
				}}},
		},
	}}
	s := mustCompile(t, p)
	if len(s.Requests) != 3 || len(s.Entries) != 2 {
		t.Fatalf("%d requests, %d entries", len(s.Requests), len(s.Entries))
	}
	home := s.Requests[0]
	if !home.Static || string(home.URI.Segments[0]) != "/api/home" || home.Method != "GET" {
		t.Fatalf("home: %+v", home)
	}
	if len(home.Headers) != 1 || home.Headers[0].Name != "User-Agent" {
		t.Fatalf("home headers: %+v", home.Headers)
	}

	login := s.Requests[1]
	if login.Static || login.Name != "login.login" || login.Body.Holes[0].Index != 1 || !login.Body.Holes[0].JSONEscape {
		t.Fatalf("login: %+v", login)
	}
	v := Values{Seed: 7, Slot: 3, Row: s.Row(1, 0)}
	body := string(login.Body.Append(nil, &v))
	if body[:len(`{"user":"a\"b","id":`)] != `{"user":"a\"b","id":` {
		t.Fatalf("body %s", body)
	}

	me := s.Requests[2]
	if got := string(me.URI.Segments[0]); got != "/api/me/" {
		t.Fatalf("me URI prefix %q", got)
	}
	// The request's user-agent replaces the target's User-Agent.
	if len(me.Headers) != 2 || me.Headers[0].Name != "authorization" || me.Headers[1].Name != "user-agent" {
		t.Fatalf("me headers: %+v", me.Headers)
	}
	if h := me.Headers[0].Value.Holes[0]; h.Kind != plan.HoleCaptured || h.Index != 0 {
		t.Fatalf("captured hole %+v", h)
	}
	seen := map[uint32]bool{}
	for _, r := range s.Requests {
		for _, sp := range append([]Splice{r.URI, r.Body}, headerSplices(r)...) {
			if len(sp.Segments) != len(sp.Holes)+1 {
				t.Fatalf("%s: %d segments for %d holes", r.Name, len(sp.Segments), len(sp.Holes))
			}
			for _, h := range sp.Holes {
				if seen[h.ID] {
					t.Fatalf("hole ID %d used twice", h.ID)
				}
				seen[h.ID] = true
			}
		}
	}
	u1 := string(me.URI.Append(nil, &v))
	if len(u1) != len("/api/me/")+36+1+36 || u1[8:44] == u1[45:] {
		t.Fatalf("uuid holes %q", u1)
	}

	e := s.Entries[1]
	if !e.Scenario || e.Data != 0 || e.Connection != plan.ConnectionPool || e.Think != 50*time.Millisecond {
		t.Fatalf("entry %+v", e)
	}
	if e.Steps[0].Think != 50*time.Millisecond || e.Steps[1].Think != 10*time.Millisecond || e.Steps[1].Repeat != 3 || e.Steps[0].Repeat != 1 {
		t.Fatalf("steps %+v", e.Steps)
	}
	if e.Steps[0].Captures[0].Index != 0 {
		t.Fatalf("captures %+v", e.Steps[0].Captures)
	}
}

func headerSplices(r Request) []Splice {
	var out []Splice
	for _, h := range r.Headers {
		out = append(out, h.Value)
	}
	return out
}

func TestCompileDiagnostics(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(80*time.Hour, 1)}, 1)
	if _, diags := Compile(p); !diags.HasErrors() || diags[0].Subject == nil {
		t.Fatalf("an 80 h schedule compiled: %v", diags)
	}
	p = openPlan(t, []plan.Stage{constant(time.Second, 1)}, 1)
	p.Load.Arrival = "bursty"
	if _, diags := Compile(p); !diags.HasErrors() {
		t.Fatal("unknown arrival compiled")
	}
	p = openPlan(t, []plan.Stage{constant(time.Second, 1)}, 1)
	p.Endpoints[0].Target = "nope"
	if _, diags := Compile(p); !diags.HasErrors() {
		t.Fatal("unknown target compiled")
	}
	p = openPlan(t, []plan.Stage{constant(time.Second, 1)})
	for i := 0; i <= MaxEntries; i++ {
		p.Endpoints = append(p.Endpoints, &plan.Endpoint{Name: "e", Weight: 1, Request: plan.Request{Target: "api"}})
	}
	if _, diags := Compile(p); !diags.HasErrors() {
		t.Fatal("more than MaxEntries compiled")
	}
}
