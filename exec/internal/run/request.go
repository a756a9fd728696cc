package run

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/check"
	"github.com/tressi/tressi/h2"
)

// PreparedRequest is one request-table entry made ready to send: a static
// request is built once and copied per send; one with holes is rendered
// per send into the worker's buffer.
type PreparedRequest struct {
	Spec     *compile.Request
	Client   *fasthttp.HostClient
	Timeout  time.Duration
	Endpoint uint16 // index into the results' endpoint names
	origin   []byte // scheme://host, prefixed to the rendered path
	Static   *fasthttp.Request
	Wire     []byte // a static request's bytes on the wire, for the loop engine
	// H2 is a static request as HTTP/2 sends it, its header block encoded
	// once (looph2_linux.go), for targets that may speak HTTP/2; nil
	// otherwise, and the stream converts and encodes per send.
	H2 *h2.Request
	// Checks are the request's check blocks, compiled; nil without any.
	// Checked counts, per check, the responses it was run on and those it
	// failed (for meta.json, the report and check_rate).
	Checks  *check.Program
	Checked []CheckCount
}

// CheckCount counts one check's runs; every sender of the request adds to
// it, once per response.
type CheckCount struct {
	Run, Failed atomic.Int64
	_           [48]byte // a cache line each: loops on several cores add at once
}

// PrepareRequests builds the request table and the results' endpoint names
// (request names, deduplicated in order of first appearance).
func PrepareRequests(s *compile.Schedule, cs *clients) ([]PreparedRequest, []string, error) {
	prs := make([]PreparedRequest, len(s.Requests))
	var names []string
	index := map[string]uint16{}
	for i := range s.Requests {
		rq := &s.Requests[i]
		if rq.Target < 0 || rq.Target >= len(s.Targets) {
			return nil, nil, fmt.Errorf("request %q names target %d, the schedule has %d", rq.Name, rq.Target, len(s.Targets))
		}
		t := &s.Targets[rq.Target]
		ep, ok := index[rq.Name]
		if !ok {
			ep = uint16(len(names))
			index[rq.Name] = ep
			names = append(names, rq.Name)
		}
		pr := PreparedRequest{Spec: rq, Client: cs.Hosts[rq.Target], Timeout: t.Timeout, Endpoint: ep,
			origin: []byte(t.Scheme + "://" + t.Host)}
		checks, err := check.New(rq.Checks)
		if err != nil {
			return nil, nil, fmt.Errorf("request %q: %w; recompile the plan with this tressi", rq.Name, err)
		}
		pr.Checks, pr.Checked = checks, make([]CheckCount, checks.Len())
		if isStatic(rq) {
			req := new(fasthttp.Request)
			// The static request owns its buffer for good: SetBodyRaw keeps it.
			Render(req, &pr, &compile.Values{Seed: s.Seed}, nil)
			pr.Static = req
			pr.Wire = wireBytes(req)
			if t.Protocol != "" {
				pr.H2 = staticH2(pr.Wire, t.Scheme)
			}
		}
		prs[i] = pr
	}
	if len(names) > compile.MaxEntries {
		return nil, nil, fmt.Errorf("%d endpoint names, at most %d fit the results", len(names), compile.MaxEntries)
	}
	return prs, names, nil
}

// staticH2 is wire as an HTTP/2 request with its header block, nil when
// wire does not convert (each send then fails with the reason in its row).
func staticH2(wire []byte, scheme string) *h2.Request {
	req := new(h2.Request)
	if h2.FromHTTP1(wire, []byte(scheme), req) != nil {
		return nil
	}
	block, err := h2.AppendBlock(nil, req)
	if err != nil {
		return nil
	}
	req.Block = block
	return req
}

func isStatic(rq *compile.Request) bool {
	if !rq.URI.Static() || !rq.Body.Static() {
		return false
	}
	for i := range rq.Headers {
		if !rq.Headers[i].Value.Static() {
			return false
		}
	}
	return true
}

// Render fills req from the request's splices and returns buf, which now
// holds the body that req references without a copy: the caller must not
// touch buf until the request was sent.
func Render(req *fasthttp.Request, pr *PreparedRequest, v *compile.Values, buf []byte) []byte {
	rq := pr.Spec
	req.Reset()
	req.Header.DisableNormalizing()
	buf = append(buf[:0], pr.origin...)
	buf = rq.URI.Append(buf, v)
	req.SetRequestURIBytes(buf) // copies
	// A plan's Host header names a virtual host on the target's address:
	// without this, fasthttp's writer replaces it with the URL's host. With
	// no Host header the URL's host is written, as before.
	req.UseHostHeader = true
	req.Header.SetMethod(rq.Method)
	for i := range rq.Headers {
		h := &rq.Headers[i]
		buf = h.Value.Append(buf[:0], v)
		req.Header.SetBytesV(h.Name, buf) // copies
	}
	buf = rq.Body.Append(buf[:0], v)
	if rq.GRPC != nil && rq.GRPC.Message != nil {
		buf = appendGRPCMessage(buf, rq.GRPC.Message, v)
	}
	if len(buf) > 0 {
		req.SetBodyRaw(buf)
	}
	return buf
}
