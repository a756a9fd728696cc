package compile

import (
	"bytes"
	"compress/gzip"
	"io"
	"reflect"
	"strconv"
	"testing"
	"testing/fstest"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/tressi/tressi/grpc"
	"github.com/tressi/tressi/plan"
	"github.com/tressi/tressi/testserver/grpctarget"
)

const grpcPlan = `
target "echo" {
  url = "grpc://127.0.0.1:50051"
  proto {
    files = ["tressibench.proto"]
  }
}
data "users" {
  csv = "users.csv"
}
endpoint "fixed" {
  rpc = "tressibench.Echo/Unary"
  message = {
    text = "hello", id = 0, code = 3, tags = ["a", "b"], numbers = [1, -2, 300]
    inner = { note = "n", n = 7 }, labels = { zone = "b", env = "test" }, kind = "KIND_B"
    flag = true, ratio = 0.25, delta = -5, f32 = 9, score = 1.5, big = 18446744073709551615
    payload = "raw"
  }
  metadata = { "x-tenant" = "a" }
  deadline = "1500ms"
}
endpoint "zipped" {
  rpc         = "tressibench.Echo/Unary"
  message     = { text = "zip zip zip zip zip zip" }
  compression = "gzip"
}
endpoint "varying" {
  rpc = "tressibench.Echo/Unary"
  message = {
    text    = "hello ${seq} ${row.name}"
    id      = seq
    big     = row.n
    delta   = random_int(-3, 3)
    numbers = [seq, 5, 7]
    inner   = { note = "${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}${row.name}", n = 2 }
    labels  = { who = row.name }
    code    = row.zero
  }
}
load {
  stage {
    duration = "1s"
    rate     = 3
  }
}
`

func compileGRPC(t *testing.T) (*Schedule, *plan.Plan) {
	t.Helper()
	fsys := fstest.MapFS{
		"p.hcl":             {Data: []byte(grpcPlan)},
		"tressibench.proto": {Data: grpctarget.Proto},
		"users.csv":         {Data: []byte("name,n,zero\nalice-with-a-long-name,1,0\nbob,18446744073709551615,0\n")},
	}
	p, _, diags := plan.Load(plan.Options{Path: "p.hcl", FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return mustCompile(t, p), p
}

// marshal is protobuf-go's deterministic encoding of the message the JSON
// describes: what grpc-go's client would send.
func marshal(t *testing.T, md protoreflect.MessageDescriptor, js string) []byte {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(js), m); err != nil {
		t.Fatal(err)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func requestNamed(t *testing.T, s *Schedule, name string) *Request {
	for i := range s.Requests {
		if s.Requests[i].Name == name {
			return &s.Requests[i]
		}
	}
	t.Fatalf("no request %q", name)
	return nil
}

// TestGRPCFixedMessageAsProtobufGo: a message without per-request values
// is encoded once, framed, into the body, byte for byte as protobuf-go
// encodes it; the headers are gRPC's.
func TestGRPCFixedMessageAsProtobufGo(t *testing.T) {
	s, p := compileGRPC(t)
	md := p.Endpoints[0].GRPC.Desc.Input()
	r := requestNamed(t, s, "fixed")
	if !r.Static || r.GRPC == nil || r.GRPC.Message != nil || r.Method != "POST" || string(r.URI.Segments[0]) != "/tressibench.Echo/Unary" {
		t.Fatalf("request %+v", r)
	}
	want := grpc.AppendMessage(nil, marshal(t, md, `{"text":"hello","code":3,"tags":["a","b"],"numbers":[1,-2,300],
		"inner":{"note":"n","n":7},"labels":{"zone":"b","env":"test"},"kind":"KIND_B","flag":true,"ratio":0.25,
		"delta":"-5","f32":9,"score":1.5,"big":"18446744073709551615","payload":"cmF3"}`), false)
	if got := r.Body.Segments[0]; !bytes.Equal(got, want) {
		t.Fatalf("body\n got %x\nwant %x", got, want)
	}
	var names []string
	for _, h := range r.Headers {
		names = append(names, h.Name+": "+string(h.Value.Append(nil, &Values{})))
	}
	wantHeaders := []string{"content-type: application/grpc", "te: trailers", "grpc-timeout: 1500000u", "x-tenant: a"}
	if !reflect.DeepEqual(names, wantHeaders) {
		t.Fatalf("headers %q, want %q", names, wantHeaders)
	}
	if !reflect.DeepEqual(r.Expect, []int{0}) {
		t.Fatalf("expect %v, want OK only", r.Expect)
	}
	if !s.Targets[0].GRPC.equal(p.Descriptors["echo"]) || s.Targets[0].Protocol != ProtocolH2C || s.Targets[0].Scheme != "http" {
		t.Fatalf("target %+v", s.Targets[0])
	}
}

func (g *TargetGRPC) equal(b []byte) bool {
	return g != nil && len(b) > 0 && bytes.Equal(g.Protoset, b)
}

func TestGRPCCompressedMessage(t *testing.T) {
	s, p := compileGRPC(t)
	r := requestNamed(t, s, "zipped")
	body := r.Body.Segments[0]
	if body[0] != 1 {
		t.Fatal("the compressed flag is not set")
	}
	zr, err := gzip.NewReader(bytes.NewReader(body[grpc.PrefixLen:]))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if want := marshal(t, p.Endpoints[0].GRPC.Desc.Input(), `{"text":"zip zip zip zip zip zip"}`); !bytes.Equal(plain, want) {
		t.Fatalf("gunzipped %x, want %x", plain, want)
	}
	if h := r.Headers[2]; h.Name != "grpc-encoding" || string(h.Value.Segments[0]) != "gzip" {
		t.Fatalf("header %+v", h)
	}
}

// TestGRPCTemplatedMessageAsProtobufGo renders the varying message for
// several slots and rows and checks each against protobuf-go's encoding
// of the same values: lengths that grow past one varint byte, zero values
// left out, packed runs, map entries, 64-bit extremes.
func TestGRPCTemplatedMessageAsProtobufGo(t *testing.T) {
	s, p := compileGRPC(t)
	md := p.Endpoints[0].GRPC.Desc.Input()
	r := requestNamed(t, s, "varying")
	if r.Static || r.GRPC.Message == nil || r.GRPC.Message.Static() {
		t.Fatal("the varying message compiled as fixed")
	}
	rows := s.Data[0].Rows
	var buf []byte
	for _, slot := range []uint64{0, 1, 127, 128, 1 << 30} {
		for _, row := range rows {
			v := &Values{Seed: 9, Slot: slot, Row: row}
			delta := Hole{Kind: plan.HoleRandomInt, Min: -3, Max: 3}
			var dh *Hole
			walkHoles(r.GRPC.Message, func(h *Hole) {
				if h.Kind == plan.HoleRandomInt {
					dh = h
				}
			})
			delta.ID = dh.ID
			d := string(delta.append(nil, v))
			note := ""
			for i := 0; i < 20; i++ {
				note += row[0]
			}
			seq := strconv.FormatUint(slot, 10)
			js := `{"text":"hello ` + seq + ` ` + row[0] + `","id":"` + seq + `","big":"` + row[1] + `","delta":"` + d +
				`","numbers":[` + seq + `,5,7],"inner":{"note":"` + note + `","n":2},"labels":{"who":"` + row[0] + `"}}`
			want := marshal(t, md, js)
			buf = r.GRPC.Message.Append(buf[:0], v)
			if !bytes.Equal(buf, want) {
				t.Fatalf("slot %d row %v:\n got %x\nwant %x", slot, row, buf, want)
			}
		}
	}
	v := &Values{Seed: 9, Slot: 1 << 30, Row: rows[0]}
	buf = r.GRPC.Message.Append(buf[:0], v)
	if n := testing.AllocsPerRun(100, func() { buf = r.GRPC.Message.Append(buf[:0], v) }); n != 0 {
		t.Fatalf("Append allocates %v times per message", n)
	}
}

func walkHoles(m *MessageTemplate, f func(*Hole)) {
	for i := range m.Parts {
		p := &m.Parts[i]
		for j := range p.Value.Holes {
			f(&p.Value.Holes[j])
		}
		if p.Nested != nil {
			walkHoles(p.Nested, f)
		}
	}
}

// TestGRPCTPlanRoundTrip: the .tplan keeps the descriptors and the message
// templates, and the hash covers them.
func TestGRPCTPlanRoundTrip(t *testing.T) {
	s, p := compileGRPC(t)
	s2, tp, _ := roundTrip(t, p)
	got := tp.Schedule
	if got.Hash != s2.Hash || got.Hash != s.Hash {
		t.Fatalf("hash %s after the round trip, %s before", got.Hash, s.Hash)
	}
	if !bytes.Equal(got.Targets[0].GRPC.Protoset, p.Descriptors["echo"]) {
		t.Fatal("the .tplan lost the descriptors")
	}
	if !reflect.DeepEqual(got.Requests, s.Requests) {
		t.Fatalf("requests differ after the round trip:\n%+v\n%+v", got.Requests[2].GRPC.Message, s.Requests[2].GRPC.Message)
	}
	other := *s
	other.Targets = append([]Target(nil), s.Targets...)
	other.Targets[0].GRPC = &TargetGRPC{Protoset: append([]byte{0x0a, 0}, s.Targets[0].GRPC.Protoset...)}
	if _, h := scan(&other); h == s.Hash {
		t.Fatal("another schema hashes as the same schedule")
	}
}
