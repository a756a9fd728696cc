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

// grpcStreamPlan runs each streaming call kind as a scenario, with calls
// the server fails on purpose (NOT_FOUND mid-stream), a cancel and a
// deadline mid-stream.
const grpcStreamPlan = `
variable "base_url" {
  type = string
}
target "echo" {
  url      = var.base_url
  protocol = "grpc"
  timeout  = "10s"
  proto {
    files = ["tressibench.proto"]
  }
}
scenario "bidi" {
  weight = 3
  step "chat" {
    rpc = "tressibench.Echo/Bidi"
  }
  step "say" {
    stream  = "chat"
    message = { text = "hi ${seq}" }
    repeat  = 4
    await {
      json = { text = "hi ${seq}" }
    }
    capture = { n = json("received") }
  }
  step "count" {
    stream  = "chat"
    message = { text = "got ${captured.n}" }
    await {
      json = { text = "got 4", seq = 4 }
    }
  }
  step "status" {
    stream = "chat"
    finish = true
  }
}
scenario "bidi_fails" {
  step "chat" {
    rpc = "tressibench.Echo/Bidi"
  }
  step "ok" {
    stream  = "chat"
    message = { text = "a" }
    await {}
  }
  step "bad" {
    stream  = "chat"
    message = { code = 5, message = "gone" }
    await {}
  }
  step "status" {
    stream = "chat"
    finish = true
    expect {
      status = ["NOT_FOUND"]
    }
  }
}
scenario "server" {
  step "feed" {
    rpc     = "tressibench.Echo/ServerStream"
    message = { text = "s-${seq}", count = 3 }
  }
  step "get" {
    stream = "feed"
    repeat = 3
    await {
      regex = "s-[0-9]+"
    }
  }
  step "status" {
    stream = "feed"
    finish = true
  }
}
scenario "client" {
  step "up" {
    rpc = "tressibench.Echo/ClientStream"
  }
  step "send" {
    stream  = "up"
    message = { text = "c ${seq}" }
    repeat  = 5
  }
  step "close" {
    stream     = "up"
    half_close = true
  }
  step "reply" {
    stream = "up"
    await {
      json = { received = 5 }
    }
  }
  step "status" {
    stream = "up"
    finish = true
  }
}
scenario "cancel" {
  step "chat" {
    rpc = "tressibench.Echo/Bidi"
  }
  step "say" {
    stream  = "chat"
    message = { text = "x" }
    await {}
  }
  step "bye" {
    stream = "chat"
    cancel = true
  }
}
scenario "deadline" {
  step "feed" {
    rpc      = "tressibench.Echo/ServerStream"
    deadline = "300ms"
    message  = { count = 3, delay_ms = 200 }
  }
  step "get" {
    stream = "feed"
    repeat = 3
    await {}
  }
  step "status" {
    stream = "feed"
    finish = true
    expect {
      status = ["DEADLINE_EXCEEDED"]
    }
  }
}
load {
  stage {
    duration = "2s"
    rate     = 40
  }
}
`

type streamReport struct {
	Requests, OK int64
	Endpoints    []struct {
		Name     string
		Requests int64
		Status   map[string]int64
	}
}

type streamMeta struct {
	GRPCStreams map[string]struct{ Calls, Sent, Received, Unmatched int64 } `json:"grpc_streams"`
}

// TestGRPCStreamsCountAsTheServer runs every streaming call kind against
// the grpc-go target and checks, per method, the calls by code, the
// messages sent and the replies received against the server's counters.
func TestGRPCStreamsCountAsTheServer(t *testing.T) {
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
	planFile := filepath.Join(dir, "streams.hcl")
	os.WriteFile(planFile, []byte(grpcStreamPlan), 0o644)
	os.WriteFile(filepath.Join(dir, grpctarget.ProtoName), grpctarget.Proto, 0o644)
	out := filepath.Join(dir, "run")
	code, stdout, stderr := run(t, nil, "apply", planFile, "--quiet", "--json", "-o", out, "--var", "base_url=http://"+ln.Addr().String())
	if code != ExitOK {
		t.Fatalf("apply exit %d\n%s\n%s", code, stdout, stderr)
	}
	var rep streamReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	ep := map[string]map[codes.Code]int64{}
	rows := map[string]int64{}
	for _, e := range rep.Endpoints {
		ep[e.Name] = map[codes.Code]int64{}
		for k, n := range e.Status {
			var c int
			fmt.Sscan(k, &c)
			ep[e.Name][codes.Code(c)] += n
		}
		rows[e.Name] = e.Requests
	}
	sessions := map[string]int64{}
	for _, s := range []string{"bidi", "bidi_fails", "server", "client", "cancel", "deadline"} {
		end := map[string]string{"cancel": "bye"}[s]
		if end == "" {
			end = "status"
		}
		sessions[s] = rows[s+"."+end]
		if sessions[s] == 0 {
			t.Fatalf("scenario %s recorded no call's end: %v", s, rows)
		}
	}
	// Every message one row, every session accounted.
	wantRows := map[string]int64{"bidi.say": 4 * sessions["bidi"], "bidi.count": sessions["bidi"], "bidi_fails.ok": sessions["bidi_fails"],
		"bidi_fails.bad": sessions["bidi_fails"], "server.get": 3 * sessions["server"], "client.send": 5 * sessions["client"],
		"client.reply": sessions["client"], "cancel.say": sessions["cancel"], "deadline.get": 3 * sessions["deadline"]}
	for name, n := range wantRows {
		if rows[name] != n {
			t.Errorf("%s: %d rows, want %d", name, rows[name], n)
		}
	}
	if total := int64(80); sessions["bidi"]+sessions["bidi_fails"]+sessions["server"]+sessions["client"]+sessions["cancel"]+sessions["deadline"] != total {
		t.Errorf("sessions %v, want %d in all", sessions, total)
	}
	// Calls by method and code, as the server counted them.
	calls := map[grpctarget.Key]int64{}
	add := func(method, endpoint string) {
		for c, n := range ep[endpoint] {
			calls[grpctarget.Key{Method: "/tressibench.Echo/" + method, Code: c}] += n
		}
	}
	add("Bidi", "bidi.status")
	add("Bidi", "bidi_fails.status")
	add("Bidi", "cancel.bye")
	add("ServerStream", "server.status")
	add("ServerStream", "deadline.status")
	add("ClientStream", "client.status")
	server := srv.Calls()
	for k, n := range server {
		if calls[k] != n {
			t.Errorf("%s %s: tressi counted %d calls, the server %d", k.Method, grpc.Code(k.Code), calls[k], n)
		}
	}
	for k, n := range calls {
		if _, ok := server[k]; !ok {
			t.Errorf("%s %s: tressi counted %d calls, the server none", k.Method, grpc.Code(k.Code), n)
		}
	}
	for _, want := range []grpctarget.Key{{Method: "/tressibench.Echo/Bidi", Code: codes.NotFound}, {Method: "/tressibench.Echo/Bidi", Code: codes.Canceled},
		{Method: "/tressibench.Echo/ServerStream", Code: codes.DeadlineExceeded}} {
		if server[want] == 0 {
			t.Errorf("the server counted no %s %s call: %v", want.Method, grpc.Code(want.Code), server)
		}
	}
	if rep.OK != rep.Requests-ep["bidi_fails.bad"][codes.NotFound]-ep["deadline.get"][codes.DeadlineExceeded] {
		t.Errorf("ok %d of %d: only the replies the failed calls never sent may fail (%v, %v)", rep.OK, rep.Requests, ep["bidi_fails.bad"], ep["deadline.get"])
	}
	// Messages sent and replies received, by method.
	metaBytes, err := os.ReadFile(filepath.Join(out, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta streamMeta
	if err := json.Unmarshal(metaBytes, &meta); err != nil {
		t.Fatal(err)
	}
	byMethod := func(steps ...string) (sent, received int64) {
		for _, s := range steps {
			f := meta.GRPCStreams[s]
			sent, received = sent+f.Sent, received+f.Received
		}
		return
	}
	sent, received := byMethod("bidi.chat", "bidi_fails.chat", "cancel.chat")
	if m, r := srv.Messages()["/tressibench.Echo/Bidi"], srv.Replies()["/tressibench.Echo/Bidi"]; sent != m || received != r {
		t.Errorf("Bidi: tressi sent %d, received %d; the server read %d, sent %d", sent, received, m, r)
	}
	sent, received = byMethod("client.up")
	if m, r := srv.Messages()["/tressibench.Echo/ClientStream"], srv.Replies()["/tressibench.Echo/ClientStream"]; sent != m || received != r {
		t.Errorf("ClientStream: tressi sent %d, received %d; the server read %d, sent %d", sent, received, m, r)
	}
	_, received = byMethod("server.feed", "deadline.feed")
	if r := srv.Replies()["/tressibench.Echo/ServerStream"]; received != r {
		t.Errorf("ServerStream: tressi received %d, the server sent %d", received, r)
	}
	if t.Failed() {
		t.Logf("endpoints %v\nmeta %+v\nserver %s", ep, meta.GRPCStreams, srv.Summary())
	}
}
