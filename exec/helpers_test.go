package exec

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
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

// server is a real fasthttp server on a loopback port that counts requests.
type server struct {
	addr  string
	count atomic.Int64
}

func serve(t testing.TB, h func(ctx *fasthttp.RequestCtx)) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{addr: ln.Addr().String()}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		s.count.Add(1)
		h(ctx)
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	return s
}

func ok(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") }

// literal is a splice without holes.
func literal(s string) compile.Splice { return compile.Splice{Segments: [][]byte{[]byte(s)}} }

// schedule is an open schedule of n GET / to addr, one every interval.
func schedule(addr string, n int, interval time.Duration) *compile.Schedule {
	s := &compile.Schedule{
		Name: "test", Model: compile.Open, Seed: 7, Duration: time.Duration(n) * interval, Hash: "h",
		Targets: []compile.Target{{Name: "t", Scheme: "http", Addr: addr, Host: addr, Connections: 64,
			Timeout: 2 * time.Second, ConnectTimeout: time.Second}},
		Requests: []compile.Request{{Name: "home", Method: "GET", URI: literal("/"), Static: true}},
		Entries:  []compile.Entry{{Name: "home", Weight: 1, Data: -1, Steps: []compile.Step{{Name: "home", Request: 0, Repeat: 1}}}},
	}
	slots := make([]compile.Slot, n)
	for k := range slots {
		slots[k] = compile.MakeSlot(int64(k)*int64(interval), 0)
	}
	return s.WithSlots(slots)
}

// run runs s into a temporary directory and reads every row back.
func runPlan(t testing.TB, s *compile.Schedule, opt Options) (*Outcome, []results.Row) {
	t.Helper()
	if opt.OutDir == "" {
		opt.OutDir = filepath.Join(t.TempDir(), "run")
	}
	out, err := Run(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	return out, readResults(t, filepath.Join(opt.OutDir, ResultsFile))
}

// readResults reads a results file back, sorted by slot.
func readResults(t testing.TB, path string) []results.Row {
	t.Helper()
	r, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []results.Row
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		for i := 0; i < b.Len; i++ {
			kind, _ := results.ParseErrorKind(b.ErrorNames[b.Error[i]])
			rows = append(rows, results.Row{Slot: b.Slot[i], Scheduled: b.Scheduled[i], Sent: b.Sent[i],
				Latency: b.Latency[i], Service: b.Service[i], Status: b.Status[i], Error: kind,
				BytesOut: b.BytesOut[i], BytesIn: b.BytesIn[i]})
			if b.Connect != nil {
				rows[len(rows)-1].Connect = b.Connect[i]
			}
		}
	}
	if r.Err() != nil || r.Truncated != nil {
		t.Fatalf("reading results: %v / %v", r.Err(), r.Truncated)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Slot < rows[j].Slot })
	return rows
}

// checkOneRowPerSlot fails unless rows hold slots 0..n-1 exactly once.
func checkOneRowPerSlot(t testing.TB, rows []results.Row, n int) {
	t.Helper()
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for k, r := range rows {
		if r.Slot != uint64(k) {
			t.Fatalf("row %d has slot %d: slots missing or repeated", k, r.Slot)
		}
	}
}

func countErrors(rows []results.Row) map[results.ErrorKind]int {
	m := map[results.ErrorKind]int{}
	for _, r := range rows {
		m[r.Error]++
	}
	return m
}

// quantileOf is the exact q-quantile (0–1) of vs by the nearest-rank method.
func quantileOf(vs []int64, q float64) int64 {
	s := append([]int64(nil), vs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

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

// rawServer answers each request it reads on a loopback port with reply,
// which writes whatever it likes on the raw connection and says whether
// the connection stays open.
func rawServer(t *testing.T, reply func(c net.Conn, req *http.Request) (keep bool)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if !reply(c, req) {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func write(c net.Conn, parts ...string) {
	for _, p := range parts {
		if p == "<pause>" {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		c.Write([]byte(p))
	}
}

// pki is a private CA made for one test, with its certificate in a file.
type pki struct {
	dir    string
	ca     *x509.Certificate
	key    *ecdsa.PrivateKey
	caFile string
	serial int64
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir(), serial: 1}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tressi test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p.ca, _ = x509.ParseCertificate(der)
	p.key = key
	p.caFile = p.write(t, "ca.pem", "CERTIFICATE", der)
	return p
}

func (p *pki) write(t *testing.T, name, kind string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// issue signs a certificate for names (DNS names or IPs), valid from
// notBefore to notAfter, for a server or a client.
func (p *pki) issue(t *testing.T, names []string, notBefore, notAfter time.Time, client bool) (tls.Certificate, *x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p.serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: names[0]},
		NotBefore: notBefore, NotAfter: notAfter, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, leaf, key
}

// clientFiles issues a client certificate and writes it and its key.
func (p *pki) clientFiles(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	_, leaf, key := p.issue(t, []string{"tressi client"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), true)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return p.write(t, "client.pem", "CERTIFICATE", leaf.Raw), p.write(t, "client-key.pem", "EC PRIVATE KEY", kder)
}

func readMeta(t *testing.T, dir string) Meta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func readSampleFile(t *testing.T, dir string) []results.Sample {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ss, err := results.ReadSamples(f)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// startTarget runs the built-in target (its WebSocket routes) on loopback.
func startTarget(t *testing.T, opts testserver.Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(opts)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func runWS(t *testing.T, s *compile.Schedule) (map[uint64][]namedRow, *results.WebSocketSummary, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Run(context.Background(), s, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	rows, _ := sessionRows(t, dir)
	sum, err := results.ReadWebSocketSummary(dir)
	if err != nil || sum == nil {
		t.Fatalf("websocket.json: %v", err)
	}
	return rows, sum, dir
}

// checkSessionRows: every session slot has exactly the rows its program
// schedules, whatever happened to it.
func checkSessionRows(t *testing.T, s *compile.Schedule, rows map[uint64][]namedRow) {
	t.Helper()
	if int64(len(rows)) != s.Count {
		t.Fatalf("%d slots have rows, the schedule has %d", len(rows), s.Count)
	}
	for k, rs := range rows {
		e := &s.Entries[s.Pick(k)]
		if want := compile.SessionRows(e); int64(len(rs)) != want {
			t.Fatalf("slot %d has %d rows, its session schedules %d: %+v", k, len(rs), want, rs)
		}
	}
}
