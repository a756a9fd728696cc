package results

import (
	"bufio"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

func TestZZProbe(t *testing.T) {
	path := os.Getenv("PROBE")
	if path == "" {
		t.Skip()
	}
	f, _ := os.Open(path)
	br := bufio.NewReaderSize(f, 1<<16)
	dec := newDecoders()
	dec.trustFrames = true
	var comp, raw [22]int64
	var dur [22]time.Duration
	var bufs [22][]byte
	for {
		msg, err := readMessage(br, nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		typ, hdr, _ := messageHeader(msg.meta)
		if typ != headerRecord {
			continue
		}
		rb, _ := readRecordBatch(hdr, len(msg.body))
		for i, b := range rb.buffers {
			if b.length == 0 {
				continue
			}
			t0 := time.Now()
			out, err := dec.buffer(bufs[i], msg.body, b, rb.codec, 0)
			dur[i] += time.Since(t0)
			if err != nil {
				t.Fatal(err)
			}
			bufs[i] = out
			comp[i] += b.length
			raw[i] += int64(len(out))
		}
	}
	names := append(contractColumns[:], ColConnect)
	for i := 1; i < 22; i += 2 {
		t.Logf("%-14s comp %6.1f MB raw %6.1f MB ratio %.2f decode %v (%.2f GB/s)", names[i/2], float64(comp[i])/1e6, float64(raw[i])/1e6, float64(raw[i])/float64(comp[i]), dur[i], float64(raw[i])/dur[i].Seconds()/1e9)
	}
}
