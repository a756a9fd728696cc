package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/testserver/grpctarget"
)

// grpcPlan calls Unary four ways: OK with per-request values, failed on
// purpose with NOT_FOUND (expected) and UNAVAILABLE (not), and a fixed
// message; the schema comes from the server's reflection service or from
// the .proto file.
const grpcPlanText = `
variable "base_url" {
  type = string
}
target "echo" {
  url         = var.base_url
  protocol    = "grpc"
  connections = 3
  max_streams = 20
  proto {
    %s
  }
}
endpoint "ok" {
  weight   = 6
  rpc      = "tressibench.Echo/Unary"
  message  = { text = "hello ${seq}", id = seq, inner = { note = "n" } }
  metadata = { "x-tenant" = "t-${seq}" }
  deadline = "5s"
}
endpoint "fixed" {
  weight   = 2
  max_rate = 40
  rpc     = "tressibench.Echo/Unary"
  message = { text = "same every time", tags = ["a", "b"] }
}
endpoint "not_found" {
  weight  = 1
  rpc     = "tressibench.Echo/Unary"
  message = { code = 5, message = "no such user" }
  expect {
    status = ["NOT_FOUND"]
  }
}
endpoint "unavailable" {
  weight  = 1
  rpc     = "tressibench.Echo/Unary"
  message = { code = 14 }
}
load {
  %s
}
`

type grpcReport struct {
	Requests, OK int64
	GRPCCodes    map[string]int64 `json:"grpc_codes"`
	Endpoints    []struct {
		Name     string
		Requests int64
		Status   map[string]int64
		GRPC     bool
	}
}

// TestGRPCUnaryCountsAsTheServer runs unary calls in the open model (from
// reflection) and the closed model with a rate cap (from the .proto), and
// checks every count by code equals what the grpc-go server counted,
// failed calls included.
func TestGRPCUnaryCountsAsTheServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("gRPC runs on the loop engine's HTTP/2 client, Linux only")
	}
	cases := []struct {
		name, proto, load string
		want              int64 // calls, when the schedule fixes them
	}{
		{"open, reflection", `reflection = true`, `stage {
    duration = "2s"
    rate     = 200
  }`, 400},
		{"closed, proto file, rate cap", `files = ["tressibench.proto"]`, `model = "closed"
  stage {
    duration = "1s"
    users    = 8
  }`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := grpctarget.New(grpctarget.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go srv.Serve(ln)
			defer srv.Stop()
			dir := t.TempDir()
			planFile := filepath.Join(dir, "grpc.hcl")
			if err := os.WriteFile(planFile, []byte(fmt.Sprintf(grpcPlanText, tc.proto, tc.load)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, grpctarget.ProtoName), grpctarget.Proto, 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(t, nil, "apply", planFile, "--quiet", "--json", "-o", filepath.Join(dir, "run"),
				"--var", "base_url=http://"+ln.Addr().String())
			if code != ExitOK && code != ExitThresholds {
				t.Fatalf("apply exit %d\n%s\n%s", code, stdout, stderr)
			}
			var rep grpcReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			for _, e := range rep.Endpoints {
				if tc.want == 0 && e.Name == "fixed" && e.Requests > 60 {
					t.Errorf("fixed, capped at 40 calls/s, made %d calls in a 1 s run", e.Requests)
				}
			}
			if tc.want > 0 && rep.Requests != tc.want {
				t.Fatalf("%d calls, the schedule has %d", rep.Requests, tc.want)
			}
			byCode := map[codes.Code]int64{}
			for _, e := range rep.Endpoints {
				if !e.GRPC {
					t.Fatalf("endpoint %s is not marked gRPC", e.Name)
				}
				for k, n := range e.Status {
					var c int
					fmt.Sscan(k, &c)
					byCode[codes.Code(c)] += n
				}
			}
			server := map[codes.Code]int64{}
			for k, n := range srv.Calls() {
				if k.Method != "/tressibench.Echo/Unary" {
					t.Errorf("the server counted %d calls of %s", n, k.Method)
				}
				server[k.Code] += n
			}
			if len(server) != 3 || server[codes.OK] == 0 || server[codes.NotFound] == 0 || server[codes.Unavailable] == 0 {
				t.Fatalf("the server counted %v: want OK, NOT_FOUND and UNAVAILABLE calls", server)
			}
			for c, n := range server {
				if byCode[c] != n {
					t.Errorf("%s: tressi counted %d calls, the server %d", grpc.Code(c), byCode[c], n)
				}
			}
			if len(byCode) != len(server) {
				t.Errorf("tressi's codes %v, the server's %v", byCode, server)
			}
			if want := server[codes.OK] + server[codes.NotFound]; rep.OK != want {
				t.Errorf("ok = %d, want the OK and the expected NOT_FOUND calls, %d", rep.OK, want)
			}
			if rep.GRPCCodes["UNAVAILABLE"] != server[codes.Unavailable] {
				t.Errorf("grpc_codes %v", rep.GRPCCodes)
			}
		})
	}
}

// TestGRPCTPlanReplaysWithoutTheServersSchema: a plan whose schema came
// from reflection and whose metadata holds a secret is planned, then
// applied from its .tplan against a server without reflection: the
// recompile (the secret was left out) takes the embedded descriptors.
func TestGRPCTPlanReplaysWithoutTheServersSchema(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("gRPC runs on the loop engine's HTTP/2 client, Linux only")
	}
	serve := func(o grpctarget.Options) (*grpctarget.Server, string) {
		srv, err := grpctarget.New(o)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		t.Cleanup(srv.Stop)
		return srv, "http://" + ln.Addr().String()
	}
	_, withReflection := serve(grpctarget.Options{})
	dir := t.TempDir()
	planFile := filepath.Join(dir, "secret.hcl")
	src := `variable "base_url" {
  type = string
}
variable "token" {
  type      = string
  sensitive = true
}
target "echo" {
  url      = var.base_url
  protocol = "grpc"
  proto {
    reflection = true
  }
}
endpoint "call" {
  rpc      = "tressibench.Echo/Unary"
  message  = { text = "hi" }
  metadata = { authorization = "Bearer ${var.token}" }
}
load {
  stage {
    duration = "1s"
    rate     = 20
  }
}
`
	if err := os.WriteFile(planFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tplan := filepath.Join(dir, "secret.tplan")
	if code, out, errs := run(t, nil, "plan", planFile, "--var", "base_url="+withReflection, "--var", "token=s3cret", "--out", tplan); code != ExitOK {
		t.Fatalf("plan exit %d\n%s\n%s", code, out, errs)
	}
	srv, without := serve(grpctarget.Options{NoReflection: true})
	code, out, errs := run(t, nil, "apply", tplan, "--quiet", "--json", "--out", filepath.Join(dir, "run"),
		"--var", "base_url="+without, "--var", "token=s3cret")
	if code != ExitOK {
		t.Fatalf("apply exit %d\n%s\n%s", code, out, errs)
	}
	if n := srv.Calls()[grpctarget.Key{Method: "/tressibench.Echo/Unary", Code: codes.OK}]; n != 20 {
		t.Fatalf("the server without reflection answered %d calls, want 20 (%s)", n, errs)
	}
}

// TestGRPCScenarioStepsCapture: unary calls as scenario steps, the second
// sending what a regex captured from the first's answer.
func TestGRPCScenarioStepsCapture(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("gRPC runs on the loop engine's HTTP/2 client, Linux only")
	}
	srv, err := grpctarget.New(grpctarget.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Stop()
	dir := t.TempDir()
	src := `target "echo" {
  url = "grpc://` + ln.Addr().String() + `"
  proto {
    files = ["tressibench.proto"]
  }
}
scenario "login" {
  step "token" {
    rpc     = "tressibench.Echo/Unary"
    message = { text = "token-${seq}x" }
    capture = { tok = regex("token-([0-9]+)x") }
  }
  step "use" {
    rpc     = "tressibench.Echo/Unary"
    message = { text = "used ${captured.tok}", code = 5 }
    expect {
      status = ["NOT_FOUND"]
    }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 20
  }
}
`
	planFile := filepath.Join(dir, "steps.hcl")
	if err := os.WriteFile(planFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, grpctarget.ProtoName), grpctarget.Proto, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, nil, "apply", planFile, "--quiet", "--json", "-o", filepath.Join(dir, "run"))
	if code != ExitOK {
		t.Fatalf("apply exit %d\n%s\n%s", code, stdout, stderr)
	}
	var rep grpcReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if rep.Requests != 40 || rep.OK != 40 || calls[grpctarget.Key{Method: "/tressibench.Echo/Unary", Code: codes.OK}] != 20 ||
		calls[grpctarget.Key{Method: "/tressibench.Echo/Unary", Code: codes.NotFound}] != 20 {
		t.Fatalf("report %+v; the server counted %v", rep, calls)
	}
}
