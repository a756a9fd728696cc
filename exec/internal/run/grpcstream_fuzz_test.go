package run

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/testserver/grpctarget"
)

// FuzzCallReply feeds a stream step's reply handling whatever bytes a
// server may send as a reply: decoding to protojson, the await's json and
// regex matching, the status path and the captures never panic, and a
// reply whose text field holds the awaited value matches.
func FuzzCallReply(f *testing.F) {
	sc, err := grpctarget.Schema()
	if err != nil {
		f.Fatal(err)
	}
	md, err := sc.Method("tressibench.Echo/Bidi")
	if err != nil {
		f.Fatal(err)
	}
	a, _, err := newWSAwait("fuzz", &compile.Await{JSON: []compile.JSONMatch{{Path: "text", Value: compile.Splice{Segments: [][]byte{[]byte("hi")}}}},
		Regex: "h", Status: "seq"}, nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	capJSON, err := newWSCapture(compile.Capture{Name: "n", Kind: compile.CaptureJSON, Expr: "received", Index: 0})
	if err != nil {
		f.Fatal(err)
	}
	capRe, err := newWSCapture(compile.Capture{Name: "r", Kind: compile.CaptureRegex, Expr: "h(.)", Index: 1})
	if err != nil {
		f.Fatal(err)
	}
	st := &Step{Await: a, Message: []wsCapture{capJSON, capRe}, Call: &CallStep{Reply: md.Output(), decodeJSON: true}}
	want := st.Want(nil, &compile.Values{})
	hi := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "hi")
	f.Add(hi)
	f.Add(append(append([]byte(nil), hi...), 0x18, 0x07, 0x20, 0x02)) // seq 7, received 2
	f.Add([]byte{0x0a, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, p []byte) {
		r := st.Call.DecodeReply(p, nil)
		matched := st.MatchesReply(r, want, nil)
		st.ReplyStatus(r)
		var c Captured
		c.Reset(2)
		st.FillMessage(&c, r.Raw, r.JSON, true)
		if bytes.Equal(p, hi) && !matched {
			t.Fatalf("a reply of text \"hi\" did not match: json %s", r.JSON)
		}
	})
}
