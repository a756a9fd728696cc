package h2

import (
	"bytes"
	"io"
	"net"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// scriptedServer is a raw HTTP/2 server for the cases real servers will not
// produce on demand: it reads the preface and SETTINGS, waits for n request
// HEADERS, runs script, then drains until the client goes.
func scriptedServer(t testing.TB, script func(fr *http2.Framer, streams []uint32), n int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		preface := make([]byte, len(Preface))
		if _, err := io.ReadFull(nc, preface); err != nil || string(preface) != Preface {
			return
		}
		fr := http2.NewFramer(nc, nc)
		fr.WriteSettings()
		var streams []uint32
		for len(streams) < n {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if !f.IsAck() {
					fr.WriteSettingsAck()
				}
			case *http2.HeadersFrame:
				streams = append(streams, f.StreamID)
			}
		}
		script(fr, streams)
		for {
			if _, err := fr.ReadFrame(); err != nil {
				return
			}
		}
	}()
	return ln.Addr().String()
}

// writeHeaders sends one HEADERS frame with the fields given as name, value pairs.
func writeHeaders(fr *http2.Framer, id uint32, end bool, kv ...string) {
	var b bytes.Buffer
	enc := hpack.NewEncoder(&b)
	for i := 0; i < len(kv); i += 2 {
		enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
	}
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: b.Bytes(), EndHeaders: true, EndStream: end})
}

// writeResponse sends a whole response: headers, then the body if any.
func writeResponse(fr *http2.Framer, id uint32, status, body string) {
	writeHeaders(fr, id, body == "", ":status", status)
	if body != "" {
		fr.WriteData(id, true, []byte(body))
	}
}
