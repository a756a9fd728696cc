package examples_test

import (
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
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

// examples/wss.hcl against the built-in target served over TLS with a
// certificate made now and trusted through ca_file: every user's sessions
// connect, are echoed and close, every row ok, and meta.json counts the
// handshakes.
func TestWSSExample(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "chat.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"chat.test"},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(testserver.Options{})
	go srv.Serve(tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}))
	t.Cleanup(func() { srv.Close() })

	vars := []plan.VarArg{{Value: "base_url=wss://" + ln.Addr().String()}, {Value: "ca_file=" + caFile},
		{Value: "server_name=chat.test"}, {Value: "users=3"}, {Value: "messages=3"}, {Value: "duration=1s"}}
	p, _, diags := plan.Load(plan.Options{Path: "wss.hcl", Vars: vars})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s, diags := compile.Compile(p)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	dir := filepath.Join(t.TempDir(), "run")
	out, err := exec.Run(t.Context(), s, exec.Options{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := compile.SessionRows(&s.Entries[0])
	if out.Requests == 0 || out.OK != out.Requests || out.Requests%want != 0 {
		t.Fatalf("outcome %+v: want whole sessions of %d rows, every row ok", out, want)
	}
	sum, err := results.ReadWebSocketSummary(dir)
	if err != nil || sum == nil || sum.Sessions.Completed != out.Requests/want || sum.Sessions.Completed < 3 {
		t.Fatalf("websocket.json %+v, %v", sum, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, exec.MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	var m exec.Meta
	if err := json.Unmarshal(b, &m); err != nil || m.TLS == nil || m.TLS.Handshakes != sum.Sessions.Completed {
		t.Fatalf("meta.json tls %+v (%v): want one handshake per session", m.TLS, err)
	}
}
