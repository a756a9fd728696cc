package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// A tls block's files resolve against the plan's directory, and
// insecure_skip_verify is a warning pointing at itself.
func TestTLSBlock(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"ca.pem", "client.pem", "client-key.pem"} {
		b, err := os.ReadFile(filepath.Join("testdata/tls", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "certs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "certs", f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	src := `
target "api" {
  url = "https://api.test:8443"
  tls {
    ca_file     = "certs/ca.pem"
    cert_file   = "certs/client.pem"
    key_file    = "certs/client-key.pem"
    server_name = "internal.test"
    min_version = "1.3"
    session_resumption = false
  }
}
target "lab" {
  url = "https://10.0.0.1"
  tls {
    insecure_skip_verify = true
  }
}
endpoint "home" { target = "api" }
endpoint "lab" { target = "lab" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`
	path := filepath.Join(dir, "plan.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, diags := Load(Options{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var api, lab *Target
	for _, tg := range p.Targets {
		switch tg.Name {
		case "api":
			api = tg
		case "lab":
			lab = tg
		}
	}
	want := TLS{CAFile: filepath.Join(dir, "certs/ca.pem"), CertFile: filepath.Join(dir, "certs/client.pem"),
		KeyFile: filepath.Join(dir, "certs/client-key.pem"), ServerName: "internal.test", MinVersion: "1.3", NoResumption: true}
	got := api.TLS
	got.DeclRange = hcl.Range{}
	if got != want {
		t.Errorf("api tls\n got %+v\nwant %+v", got, want)
	}
	if !lab.InsecureSkipVerify || api.InsecureSkipVerify {
		t.Errorf("insecure_skip_verify: api %v, lab %v", api.InsecureSkipVerify, lab.InsecureSkipVerify)
	}
	var warned bool
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning && d.Summary == "Certificates are not verified" {
			warned = strings.Contains(d.Detail, `"lab"`) && d.Subject != nil && d.Subject.Start.Line == 16
		}
	}
	if !warned {
		t.Errorf("no located warning for insecure_skip_verify: %v", diags)
	}
}

// Empty strings leave tls settings unset, so plans can pass them through
// variables that default to "".
func TestTLSEmptyStringsAreUnset(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.hcl")
	src := `
target "api" {
  url = "https://api.test"
  tls {
    ca_file     = ""
    cert_file   = ""
    key_file    = ""
    server_name = ""
  }
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, diags := Load(Options{Path: path})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := p.Targets[0].TLS; got.CAFile != "" || got.CertFile != "" || got.KeyFile != "" || got.ServerName != "" {
		t.Errorf("tls %+v, want nothing set", got)
	}
}
