package h2

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"pgregory.net/rapid"
)

// fieldList is a Handler that keeps every field of every response, in
// order, as "name: value" lines (the status as ":status: N").
type fieldList struct{ got [][]string }

func (h *fieldList) Response(s *Stream, status int) bool {
	h.got[s.Tag] = append(h.got[s.Tag], fmt.Sprintf(":status: %d", status))
	return true
}
func (h *fieldList) Field(s *Stream, name, value string) {
	h.got[s.Tag] = append(h.got[s.Tag], name+": "+value)
}
func (h *fieldList) Data(*Stream, []byte)  {}
func (h *fieldList) Closed(*Stream, error) {}

// tableModel is the test's own account of the server's dynamic table, to
// write blocks that refer to it: the newest entry first.
type tableModel struct{ entries []hpack.HeaderField }

func (m *tableModel) insert(f hpack.HeaderField) {
	m.entries = slices.Insert(m.entries, 0, f)
	size := 0
	for i, e := range m.entries {
		size += int(e.Size())
		if size > headerTableSize {
			m.entries = m.entries[:i]
			return
		}
	}
}

// The memo never changes what a connection decodes: blocks repeated byte
// for byte (nginx's, which insert every field and never refer to the
// table), blocks that refer to entries the skipped repeats inserted, and
// blocks that refer to entries inserted long before, each decode to what a
// plain decoder that saw every block makes of them.
func TestMemoDecodesWhatTheDecoderWould(t *testing.T) {
	pool := []hpack.HeaderField{
		{Name: "server", Value: "nginx/1.22.1"},
		{Name: "date", Value: "Tue, 01 Dec 2026 09:53:37 GMT"},
		{Name: "date", Value: "Tue, 01 Dec 2026 09:53:38 GMT"},
		{Name: "content-type", Value: "text/plain"},
		{Name: "content-length", Value: "2"},
		{Name: "x-big", Value: string(bytes.Repeat([]byte("b"), 1500))},
		{Name: "x-trace", Value: "7f3a"},
	}
	rapid.Check(t, func(rt *rapid.T) {
		var model tableModel
		var blocks [][]byte
		var last []byte
		var lastIns []hpack.HeaderField // what last inserts
		n := rapid.IntRange(1, 300).Draw(rt, "blocks")
		for range n {
			var b []byte
			switch kind := rapid.IntRange(0, 3).Draw(rt, "kind"); {
			case kind == 0 && last != nil:
				b = last // the same bytes again
				for _, f := range lastIns {
					model.insert(f)
				}
			case kind == 1 && len(model.entries) > 0:
				// :status 200, then entries of the table by index.
				b, lastIns = []byte{0x88}, nil
				for range rapid.IntRange(1, 3).Draw(rt, "refs") {
					k := rapid.IntRange(0, min(len(model.entries), 60)-1).Draw(rt, "entry")
					b = append(b, 0x80|byte(62+k))
				}
			default:
				// Literals with incremental indexing, from an encoder
				// with an empty table: the block stands alone.
				var buf bytes.Buffer
				enc := hpack.NewEncoder(&buf)
				enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
				lastIns = nil
				for _, i := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(pool)-1), 1, 4, rapid.ID).Draw(rt, "fields") {
					enc.WriteField(pool[i])
					model.insert(pool[i])
					lastIns = append(lastIns, pool[i])
				}
				b = buf.Bytes()
			}
			blocks = append(blocks, b)
			last = b
		}

		want := make([][]string, len(blocks))
		ref := hpack.NewDecoder(headerTableSize, nil)
		for i, b := range blocks {
			fields, err := ref.DecodeFull(b)
			if err != nil {
				rt.Fatalf("block %d: the reference decoder: %v", i, err)
			}
			for _, f := range fields {
				want[i] = append(want[i], f.Name+": "+f.Value)
			}
		}

		h := &fieldList{got: make([][]string, len(blocks))}
		c := NewConn(h, Config{})
		var in bytes.Buffer
		fr := http2.NewFramer(&in, nil)
		fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 1000})
		fr.WriteSettingsAck()
		if err := c.Feed(in.Bytes()); err != nil {
			rt.Fatal(err)
		}
		for i, b := range blocks {
			s, err := c.Start(get("x", "/"), int64(i))
			if err != nil {
				rt.Fatal(err)
			}
			in.Reset()
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: s.ID, BlockFragment: b, EndHeaders: true, EndStream: true})
			if err := c.Feed(in.Bytes()); err != nil {
				rt.Fatalf("block %d: %v", i, err)
			}
			c.Wrote(len(c.Output()))
		}
		for i := range blocks {
			if !slices.Equal(h.got[i], want[i]) {
				rt.Fatalf("block %d (% x):\n got %q\nwant %q", i, blocks[i], h.got[i], want[i])
			}
		}
	})
}
