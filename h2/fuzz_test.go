package h2

import (
	"bytes"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// serverBytes is what a server would send: SETTINGS, then a response on
// each of the first n client streams.
func serverBytes(n int, body string) []byte {
	var b, block bytes.Buffer
	fr := http2.NewFramer(&b, nil)
	fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100})
	fr.WriteSettingsAck()
	// One encoder for the connection, as a server has: repeated fields
	// become indexed after their first use.
	enc := hpack.NewEncoder(&block)
	for i := range n {
		id := uint32(2*i + 1)
		block.Reset()
		for _, f := range [][2]string{{":status", "200"}, {"content-length", "2"}, {"date", "Tue, 01 Dec 2026 05:00:00 GMT"}, {"server", "fuzz"}} {
			enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block.Bytes(), EndHeaders: true})
		fr.WriteData(id, true, []byte(body))
	}
	fr.WritePing(false, [8]byte{1})
	fr.WriteGoAway(uint32(2*n-1), http2.ErrCodeNo, []byte("bye"))
	return b.Bytes()
}

// FuzzFeed feeds arbitrary server bytes, whole and split, to a client with
// streams open: it must never panic, and once failed it stays failed.
func FuzzFeed(f *testing.F) {
	f.Add(serverBytes(3, "ok"), uint16(0))
	f.Add(serverBytes(1, "ok"), uint16(17))
	f.Add([]byte{0, 0, 4, 1, 5, 0, 0, 0, 1, 0x88, 0x00, 0x00, 0x00}, uint16(5))
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		rec := newRecorder()
		c := NewConn(rec, Config{})
		for i := range 3 {
			c.Start(get("x", "/"), int64(i))
		}
		at := min(int(split), len(in))
		err := c.Feed(in[:at])
		if err == nil {
			err = c.Feed(in[at:])
		}
		if err != nil && c.Feed([]byte{0, 0, 0, 4, 0, 0, 0, 0, 0}) != err {
			t.Fatal("a failed connection came back to life")
		}
		c.Close()
		if c.Active() != 0 || rec.closed > 3 {
			t.Fatalf("%d streams open after Close, %d closed of 3", c.Active(), rec.closed)
		}
	})
}

type countingHandler struct{ closed, bytes int }

func (h *countingHandler) Response(*Stream, int) bool    { return false }
func (h *countingHandler) Field(*Stream, string, string) {}
func (h *countingHandler) Data(_ *Stream, p []byte)      { h.bytes += len(p) }
func (h *countingHandler) Closed(*Stream, error)         { h.closed++ }

// Steady state, a request and its answer allocate nothing.
func TestNoAllocationPerStream(t *testing.T) {
	const n = 2000
	in := serverBytes(n, "ok")
	in = in[:bytes.LastIndex(in, []byte{0, 0, 8, 6})] // up to the PING
	h := &countingHandler{}
	c := NewConn(h, Config{})
	req := get("x", "/")
	req.Fields = []Field{{Name: []byte("User-Agent"), Value: []byte("tressi")}}
	// The settings frames, then the first response (which fills the
	// server's table), then each response is a fixed size.
	var settings bytes.Buffer
	fr := http2.NewFramer(&settings, nil)
	fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100})
	fr.WriteSettingsAck()
	if err := c.Feed(in[:settings.Len()]); err != nil {
		t.Fatal(err)
	}
	in = in[settings.Len():]
	per := len(in) / n
	step := func() {
		if _, err := c.Start(req, 0); err != nil {
			t.Fatal(err)
		}
		c.Wrote(len(c.Output()))
		if err := c.Feed(in[:per]); err != nil {
			t.Fatal(err)
		}
		in = in[per:]
	}
	for range 100 {
		step()
	}
	if a := testing.AllocsPerRun(n-200, step); a != 0 {
		t.Fatalf("%.2f allocations per stream, want 0", a)
	}
	if h.closed != n-100+1 && h.closed < n-200 {
		t.Fatalf("%d streams closed", h.closed)
	}
}
