package exec

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tressi/tressi/results"
)

// nginxStatuses serves three statuses by path, for counting by both.
const nginxStatuses = `location = /missing { return 404; }
    location = /teapot { return 418 "short and stout\n"; }`

// accessCounts reads an access log in the "combined" format into counts
// by "path status" and by protocol.
func accessCounts(t *testing.T, path string) (byPathStatus, byProto map[string]int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	byPathStatus, byProto = map[string]int{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		// ... "GET /teapot HTTP/2.0" 418 16 "-" "-"
		_, req, ok := strings.Cut(line, `"`)
		req, rest, ok2 := strings.Cut(req, `" `)
		f := strings.Fields(req)
		if !ok || !ok2 || len(f) != 3 {
			t.Fatalf("access log line %q", line)
		}
		status, _, _ := strings.Cut(rest, " ")
		byPathStatus[f[1]+" "+status]++
		byProto[f[2]]++
	}
	return byPathStatus, byProto
}

// An h2c run against nginx: every request tressi recorded, by path and
// status, is a line of nginx's access log, all over HTTP/2. The closed
// run keeps 60 streams in flight, so its loop naps through responses, and
// nginx ends each connection after 200 requests: the streams in flight
// past a GOAWAY are recorded unprocessed, and nginx has no line for them.
// Two GOAWAYs after 200 streams teach the loop the limit, so only the
// first connections lose streams, not each of the dozens after them.
func TestH2CRequestsMatchNginxAccessLog(t *testing.T) {
	for _, load := range []string{
		`stage {
    duration = "1s"
    rate     = 600
  }`,
		`model = "closed"
  stage {
    duration = "500ms"
    users    = 60
  }`,
	} {
		closed := strings.Contains(load, "closed")
		directives := ""
		if closed {
			directives = "keepalive_requests 200;"
		}
		addr, accessLog := startNginxServer(t, "http2", directives, nginxStatuses)
		src := fmt.Sprintf(`
target "t" {
  url         = "http://%s"
  protocol    = "h2c"
  connections = 3
  max_streams = 20
}
endpoint "ok" {
  path   = "/"
  weight = 5
}
endpoint "missing" {
  path   = "/missing"
  weight = 2
  expect { status = [404] }
}
endpoint "teapot" {
  path   = "/teapot"
  weight = 1
}
load {
  %s
}
`, addr, load)
		out, _ := runPlan(t, compilePlan(t, src, nil), Options{})
		bySlot, _ := sessionRows(t, out.Dir)
		if out.Engine != EngineLoop || int64(len(bySlot)) != out.Requests || !closed && out.Requests != 600 || closed && out.Requests < 60 {
			t.Fatalf("outcome %+v, %d slots", out, len(bySlot))
		}
		ours := map[string]int{}
		paths := map[string]string{"ok": "/", "missing": "/missing", "teapot": "/teapot"}
		unprocessed := 0
		for k, rows := range bySlot {
			r := rows[0]
			if len(rows) == 1 && r.Error == results.Unprocessed && closed {
				unprocessed++
				continue
			}
			if len(rows) != 1 || r.Error != results.None {
				t.Fatalf("slot %d: %+v", k, rows)
			}
			ours[fmt.Sprintf("%s %d", paths[r.Name], r.Status)]++
		}
		logged := 0
		for _, n := range ours {
			logged += n
		}
		awaitLogLines(t, accessLog, logged)
		theirs, protos := accessCounts(t, accessLog)
		if fmt.Sprint(ours) != fmt.Sprint(theirs) || int64(protos["HTTP/2.0"]+unprocessed) != out.Requests || unprocessed > 3*20 {
			t.Fatalf("tressi recorded %v\nnginx logged   %v (protocols %v)", ours, theirs, protos)
		}
		t.Logf("tressi recorded %v (and %d unprocessed)\nnginx logged   %v (protocols %v)", ours, unprocessed, theirs, protos)
	}
}
