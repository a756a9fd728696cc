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
	"runtime"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/testserver"
)

// examples/http2.hcl runs as its comment says, against the built-in
// target: as h2c (it failed every request with FRAME_SIZE_ERROR, the target
// spoke HTTP/1.1 only) and as h2 over TLS with a private CA passed in
// ca_file. Every request is answered, and meta.json says every connection
// spoke HTTP/2.
func TestHTTP2ExampleRunsAgainstTheBuiltInTarget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("HTTP/2 runs on the loop engine, Linux only")
	}
	cert, caFile := privateCA(t, "api.test")
	for _, tc := range []struct {
		name, protocol string
		tls            *tls.Config
		vars           []string
	}{
		{"h2c", "h2c", nil, []string{"protocol=h2c"}},
		{"h2 with a private CA", "h2", testserver.H2TLSConfig(&tls.Config{Certificates: []tls.Certificate{cert}}),
			[]string{"ca_file=" + caFile, "server_name=api.test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			scheme := "http://"
			if tc.tls != nil {
				ln, scheme = tls.NewListener(ln, tc.tls), "https://"
			}
			srv := testserver.New(testserver.Options{})
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })

			vars := []plan.VarArg{{Value: "base_url=" + scheme + ln.Addr().String()}, {Value: "rate=200"}, {Value: "duration=1s"}}
			for _, v := range tc.vars {
				vars = append(vars, plan.VarArg{Value: v})
			}
			p, _, diags := plan.Load(plan.Options{Path: "http2.hcl", Vars: vars})
			if diags.HasErrors() || len(diags) > 0 {
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
			if out.Requests != 200 || out.OK != 200 || out.Engine != exec.EngineLoop || srv.Stats().Requests != 200 {
				t.Fatalf("outcome %+v; the target counted %d requests", out, srv.Stats().Requests)
			}
			var meta struct {
				Protocols map[string]map[string]int64 `json:"protocols"`
			}
			b, err := os.ReadFile(filepath.Join(dir, exec.MetaFile))
			if err != nil || json.Unmarshal(b, &meta) != nil {
				t.Fatalf("meta.json: %v\n%s", err, b)
			}
			if got := meta.Protocols["api"]; len(got) != 1 || got[tc.protocol] < 1 {
				t.Fatalf("meta.json protocols %v, want only %s", meta.Protocols, tc.protocol)
			}
		})
	}
}

// privateCA makes a self-signed certificate for name and writes it, as the
// CA a plan trusts, to a file.
func privateCA(t *testing.T, name string) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{name},
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
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, caFile
}
