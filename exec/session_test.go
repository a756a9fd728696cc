package exec

import (
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/loop"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
	"github.com/valyala/fasthttp"
)

// compilePlan loads and compiles a plan from source, with the given extra
// files (CSV data) beside it.
func compilePlan(t *testing.T, src string, files map[string]string) *compile.Schedule {
	t.Helper()
	fsys := fstest.MapFS{"tressi.hcl": {Data: []byte(src)}}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	p, _, diags := plan.Load(plan.Options{Path: "tressi.hcl", FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s, diags := compile.Compile(p)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// namedRow is a result row with its endpoint's name.
type namedRow struct {
	results.Row
	Name string
}

// sessionRows reads a run's rows grouped by slot in send order, and its metadata.
func sessionRows(t *testing.T, dir string) (map[uint64][]namedRow, results.Meta) {
	t.Helper()
	r, err := results.Open(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	bySlot := map[uint64][]namedRow{}
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		for i := 0; i < b.Len; i++ {
			kind, _ := results.ParseErrorKind(b.ErrorNames[b.Error[i]])
			var connect int64
			if b.Connect != nil { // the column is left out of batches without a connect time
				connect = b.Connect[i]
			}
			bySlot[b.Slot[i]] = append(bySlot[b.Slot[i]], namedRow{Name: b.EndpointNames[b.Endpoint[i]], Row: results.Row{
				Slot: b.Slot[i], Scheduled: b.Scheduled[i], Sent: b.Sent[i], Latency: b.Latency[i],
				Service: b.Service[i], Status: b.Status[i], Error: kind, Connect: connect,
				BytesOut: b.BytesOut[i], BytesIn: b.BytesIn[i]}})
		}
	}
	if r.Err() != nil || r.Truncated != nil {
		t.Fatalf("reading results: %v / %v", r.Err(), r.Truncated)
	}
	for _, rows := range bySlot {
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].Scheduled < rows[j].Scheduled })
	}
	return bySlot, r.Meta
}

const loginPlan = `
target "api" {
  url         = "http://%s"
  connections = %d
  connection  = "%s"
}
data "users" {
  csv   = "users.csv"
  order = "%s"
}
scenario "journey" {
  step "login" {
    method  = "POST"
    path    = "/login"
    headers = { "X-Session" = "${seq}" }
    body    = jsonencode({ user = row.username, password = row.password })
    capture = { token = json("token") }
  }
  step "me" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
    repeat  = 3
    think   = "20ms"
  }
}
load {
  seed = 5
  stage {
    duration = "500ms"
    rate     = %d
  }
}
`

const usersCSV = "username,password\nalice,a1\nbob,b2\ncarol,c3\ndave,d4\nnobody,x\n"

// Every authenticated step succeeds because the token was really captured
// and reused; think time holds between repeats; the first request is
// scheduled at the slot's due instant; the metadata names the steps.
func TestSessionCapturesToken(t *testing.T) { forEngines(t, testSessionCapturesToken) }

func testSessionCapturesToken(t *testing.T, engine string) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	s := compilePlan(t, fmt.Sprintf(loginPlan, addr, 8, "pool", "sequential", 20), map[string]string{"users.csv": usersCSV})
	dir := filepath.Join(t.TempDir(), "run")
	out, err := Run(t.Context(), s, Options{OutDir: dir, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	bySlot, meta := sessionRows(t, dir)
	if len(bySlot) != 10 || out.Requests != 40 || out.OK != 40 {
		t.Fatalf("%d sessions, outcome %+v; want 10 sessions of 4 ok requests", len(bySlot), out)
	}
	st := srv.Stats()
	if st.Routes["login"] != 10 || st.Routes["me"] != 30 {
		t.Fatalf("server routes %v, want 10 logins and 30 /me", st.Routes)
	}
	for k := uint64(0); k < 10; k++ {
		rows := bySlot[k]
		want := []string{"journey.login", "journey.me", "journey.me", "journey.me"}
		if len(rows) != 4 {
			t.Fatalf("slot %d: %d rows", k, len(rows))
		}
		if due := int64(k) * int64(50*time.Millisecond); rows[0].Scheduled != due {
			t.Errorf("slot %d: first request scheduled at %d, want the due instant %d", k, rows[0].Scheduled, due)
		}
		for i, r := range rows {
			if r.Name != want[i] || r.Status != 200 || r.Error != results.None {
				t.Fatalf("slot %d row %d: %+v", k, i, r)
			}
			if i >= 2 && r.Sent-rows[i-1].Sent < int64(20*time.Millisecond) {
				t.Errorf("slot %d: repeats sent %v apart, think is 20ms", k, time.Duration(r.Sent-rows[i-1].Sent))
			}
			if i > 0 && r.Scheduled < rows[i-1].Scheduled+rows[i-1].Latency {
				t.Errorf("slot %d row %d scheduled before the previous request completed", k, i)
			}
		}
	}
	if got := strings.Join(meta.Scenarios["journey"], ","); got != "journey.login,journey.me" {
		t.Errorf("metadata scenarios %v", meta.Scenarios)
	}
}

// authServer is /login and /me like the target's, but refusing "nobody",
// recording which user each session slot logged in as and every bearer
// token /me saw.
type authServer struct {
	*server
	mu       sync.Mutex
	users    map[string]string // X-Session (slot) → user
	emptyTok atomic.Int64
	me, ping atomic.Int64
}

func serveAuth(t *testing.T) *authServer {
	a := &authServer{users: map[string]string{}}
	a.server = serve(t, func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/login":
			body := string(ctx.PostBody())
			user := body[strings.Index(body, `"user":"`)+8:]
			user = user[:strings.IndexByte(user, '"')]
			a.mu.Lock()
			a.users[string(ctx.Request.Header.Peek("X-Session"))] = user
			a.mu.Unlock()
			if user == "nobody" {
				ctx.SetStatusCode(401)
				ctx.SetBodyString(`{"error":"unknown user"}`)
				return
			}
			ctx.SetBodyString(`{"token":"tok-` + user + `"}`)
		case "/me":
			a.me.Add(1)
			if h := string(ctx.Request.Header.Peek("Authorization")); strings.TrimSpace(strings.TrimPrefix(h, "Bearer")) == "" {
				a.emptyTok.Add(1)
				ctx.SetStatusCode(401)
			}
		default:
			a.ping.Add(1)
		}
	})
	return a
}

// A login that fails captures nothing: the steps using the token are
// recorded as capture_failed and never sent; a step that needs no capture
// still runs.
func TestSessionCaptureFailed(t *testing.T) { forEngines(t, testSessionCaptureFailed) }

func testSessionCaptureFailed(t *testing.T, engine string) {
	a := serveAuth(t)
	src := strings.Replace(fmt.Sprintf(loginPlan, a.addr, 8, "pool", "sequential", 20),
		"  }\n}\nload {", "  }\n  step \"ping\" { path = \"/ping\" }\n}\nload {", 1)
	s := compilePlan(t, src, map[string]string{"users.csv": usersCSV})
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Run(t.Context(), s, Options{OutDir: dir, Engine: engine}); err != nil {
		t.Fatal(err)
	}
	bySlot, _ := sessionRows(t, dir)
	if len(bySlot) != 10 {
		t.Fatalf("%d sessions, want 10", len(bySlot))
	}
	for k, rows := range bySlot {
		nobody := k%5 == 4
		if len(rows) != 5 || rows[4].Name != "journey.ping" || rows[4].Status != 200 {
			t.Fatalf("slot %d: %+v", k, rows)
		}
		for _, r := range rows[1:4] {
			if !nobody && (r.Status != 200 || r.Error != results.None) {
				t.Fatalf("slot %d: %+v", k, r)
			}
			if nobody && (r.Error != results.CaptureFailed || r.Sent != -1 || r.Latency != -1 || r.Service != -1 || r.Status != 0) {
				t.Fatalf("slot %d (nobody): %+v, want capture_failed and never sent", k, r)
			}
		}
		if nobody && (rows[0].Status != 401 || rows[0].Error != results.None) {
			t.Fatalf("slot %d: the failed login keeps its status: %+v", k, rows[0])
		}
	}
	if a.emptyTok.Load() != 0 || a.me.Load() != 8*3 || a.ping.Load() != 10 {
		t.Fatalf("server saw %d /me (%d with an empty token) and %d /ping; want 24, 0, 10", a.me.Load(), a.emptyTok.Load(), a.ping.Load())
	}
}

// CSV rows reach the server as asked: sequential gives session k row k mod
// n; random is the same in two runs with one seed.
func TestSessionDataOrder(t *testing.T) { forEngines(t, testSessionDataOrder) }

func testSessionDataOrder(t *testing.T, engine string) {
	users := []string{"alice", "bob", "carol", "dave", "nobody"}
	runUsers := func(order string) map[string]string {
		a := serveAuth(t)
		s := compilePlan(t, fmt.Sprintf(loginPlan, a.addr, 8, "pool", order, 20), map[string]string{"users.csv": usersCSV})
		if _, err := Run(t.Context(), s, Options{OutDir: filepath.Join(t.TempDir(), "run"), Engine: engine}); err != nil {
			t.Fatal(err)
		}
		// The handlers' writes reach here through the sockets, which the
		// race detector does not see: the lock says so.
		a.mu.Lock()
		defer a.mu.Unlock()
		return maps.Clone(a.users)
	}
	seq := runUsers("sequential")
	if len(seq) != 10 {
		t.Fatalf("%d logins, want 10", len(seq))
	}
	for k := range 10 {
		if got := seq[fmt.Sprint(k)]; got != users[k%5] {
			t.Errorf("session %d logged in as %q, want %q", k, got, users[k%5])
		}
	}
	r1, r2 := runUsers("random"), runUsers("random")
	if fmt.Sprint(r1) != fmt.Sprint(r2) || len(r1) != 10 {
		t.Fatalf("random order differs between runs with one seed:\n%v\n%v", r1, r2)
	}
	if fmt.Sprint(r1) == fmt.Sprint(seq) {
		t.Errorf("random order is the sequential one: %v", r1)
	}
}

// connection = "session": the server accepts exactly one connection per
// session, and no more than `connections` are open at once; "pool": all
// sessions share at most `connections`. 100 sessions/s of three 10 ms
// requests: about five sessions overlap, so both caps are reached.
func TestSessionConnections(t *testing.T) { forEngines(t, testSessionConnections) }

func testSessionConnections(t *testing.T, engine string) {
	const plan = `
target "api" {
  url         = "http://%s"
  connections = %d
  connection  = "%s"
}
scenario "slow" {
  step "wait" {
    path   = "/delay/10"
    repeat = 3
    think  = "5ms"
  }
}
load {
  stage {
    duration = "300ms"
    rate     = 100
  }
}
`
	for _, tc := range []struct {
		mode  string
		conns int
	}{{"session", 3}, {"pool", 2}} {
		t.Run(tc.mode, func(t *testing.T) {
			// The server's own count of open connections lags behind the
			// client's closes, so overlap is measured from what each
			// connection carried: its first request to its last answer.
			var mu sync.Mutex
			spans := map[uint64][2]time.Time{}
			srv := serve(t, func(ctx *fasthttp.RequestCtx) {
				start := time.Now()
				time.Sleep(10 * time.Millisecond)
				mu.Lock()
				sp, ok := spans[ctx.ConnID()]
				if !ok {
					sp[0] = start
				}
				sp[1] = time.Now()
				spans[ctx.ConnID()] = sp
				mu.Unlock()
			})
			s := compilePlan(t, fmt.Sprintf(plan, srv.addr, tc.conns, tc.mode), nil)
			out, err := Run(t.Context(), s, Options{OutDir: filepath.Join(t.TempDir(), "run"), Engine: engine})
			if err != nil {
				t.Fatal(err)
			}
			// The handlers' writes reach this goroutine through the sockets,
			// which the race detector does not see: the lock says so.
			mu.Lock()
			defer mu.Unlock()
			peak := maxOverlap(spans)
			t.Logf("%s: %d connections, at most %d in use at once, p99 %v", tc.mode, len(spans), peak, out.Latency["p99"])
			if out.OK != 90 || peak != tc.conns {
				t.Fatalf("ok %d/90, %d connections in use at once, want the cap %d", out.OK, peak, tc.conns)
			}
			if tc.mode == "session" && len(spans) != 30 {
				t.Fatalf("%d connections for 30 sessions, want one each", len(spans))
			}
			if tc.mode == "pool" && len(spans) > tc.conns {
				t.Fatalf("%d connections, the pool holds %d", len(spans), tc.conns)
			}
		})
	}
}

// maxOverlap is the most spans that cover one instant.
func maxOverlap(spans map[uint64][2]time.Time) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, sp := range spans {
		edges = append(edges, edge{sp[0], 1}, edge{sp[1], -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at.Equal(edges[j].at) {
			return edges[i].delta < edges[j].delta
		}
		return edges[i].at.Before(edges[j].at)
	})
	peak, n := 0, 0
	for _, e := range edges {
		n += e.delta
		peak = max(peak, n)
	}
	return peak
}

// The closed model loops whole sessions per user.
func TestSessionClosedModel(t *testing.T) { forEngines(t, testSessionClosedModel) }

func testSessionClosedModel(t *testing.T, engine string) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(fmt.Sprintf(loginPlan, addr, 8, "pool", "sequential", 1),
		"load {\n  seed = 5\n  stage {\n    duration = \"500ms\"\n    rate     = 1\n", "load {\n  model = \"closed\"\n  think = \"5ms\"\n  stage {\n    duration = \"2s\"\n    users    = 3\n", 1)
	s := compilePlan(t, src, map[string]string{"users.csv": usersCSV})
	dir := filepath.Join(t.TempDir(), "run")
	out, err := Run(t.Context(), s, Options{OutDir: dir, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	bySlot, _ := sessionRows(t, dir)
	// 3 users for 2 s of sessions of a few ms: hundreds when idle; a
	// machine loaded far past its cores still loops a user more than once.
	if len(bySlot) <= 3 || out.OK != out.Requests || out.Requests != int64(4*len(bySlot)) {
		t.Fatalf("%d sessions, outcome %+v", len(bySlot), out)
	}
	if st := srv.Stats(); st.Routes["me"] != uint64(3*len(bySlot)) {
		t.Fatalf("server saw %d /me for %d sessions", st.Routes["me"], len(bySlot))
	}
	for k, rows := range bySlot {
		if rows[0].Name != "journey.login" || rows[1].Name != "journey.me" {
			t.Fatalf("session %d: %+v", k, rows)
		}
	}
}

// An interrupt stops sessions between requests: the run ends at once,
// every slot still has a row (not_sent for sessions never started), and
// no session goes on sending.
func TestSessionInterrupt(t *testing.T) { forEngines(t, testSessionInterrupt) }

func testSessionInterrupt(t *testing.T, engine string) {
	srv, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	s := compilePlan(t, fmt.Sprintf(`
target "api" { url = "http://%s" }
scenario "long" {
  step "tick" {
    path   = "/"
    repeat = 1000
    think  = "10ms"
  }
}
load {
  stage {
    duration = "2s"
    rate     = 50
  }
}
`, addr), nil)
	stop := make(chan struct{})
	time.AfterFunc(300*time.Millisecond, func() { close(stop) })
	dir := filepath.Join(t.TempDir(), "run")
	begin := time.Now()
	out, err := Run(t.Context(), s, Options{OutDir: dir, Interrupt: stop, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	// Without the interrupt the sessions would run 10 s (1000 ticks of 10 ms):
	// a bound far below that, and far above a busy machine's delays.
	// (Under the race detector, writing the not_sent rows alone can take
	// that long on a busy machine.)
	if d := time.Since(begin); (d > 5*time.Second && !raceEnabled) || !out.Interrupted {
		t.Fatalf("run took %v after an interrupt at 300ms; interrupted %v", d, out.Interrupted)
	}
	sent := srv.Stats().Requests
	time.Sleep(100 * time.Millisecond)
	if after := srv.Stats().Requests; after != sent {
		t.Fatalf("sessions kept sending after the run: %d then %d requests", sent, after)
	}
	bySlot, _ := sessionRows(t, dir)
	notSent := 0
	for k := range uint64(100) {
		rows := bySlot[k]
		if len(rows) != 1000 {
			t.Fatalf("slot %d has %d rows, want one per request of its session (1000)", k, len(rows))
		}
		if rows[0].Error == results.NotSent {
			notSent++
		}
	}
	if len(bySlot) != 100 || notSent < 70 {
		t.Fatalf("%d slots with rows, %d not sent; want 100 and most of them", len(bySlot), notSent)
	}
}

// forEngines runs a scenario test on every engine this OS has: scenarios
// give the same rows on both.
func forEngines(t *testing.T, test func(t *testing.T, engine string)) {
	engines := []string{EngineFasthttp}
	if loop.LoopSupported() {
		engines = append(engines, EngineLoop)
	}
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) { test(t, engine) })
	}
}
