package testserver

import "io"

// alphabet64 is the payload's repeating unit. Its length divides len(pattern),
// so byte i of any /bytes response is alphabet64[i%64] whether it was served
// from the shared buffer or streamed: a client can check what it received.
const alphabet64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// pattern is the shared, never-modified payload buffer for /bytes.
var pattern = func() []byte {
	b := make([]byte, 64<<10)
	for i := range b {
		b[i] = alphabet64[i%len(alphabet64)]
	}
	return b
}()

// Payload returns the first n bytes of what /bytes/{n} serves.
func Payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet64[i%len(alphabet64)]
	}
	return b
}

// patternReader streams left bytes of the pattern.
type patternReader struct {
	off, left int
}

func (r *patternReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		start := r.off % len(pattern)
		c := copy(p[n:min(len(p), n+r.left)], pattern[start:])
		n += c
		r.off += c
		r.left -= c
	}
	return n, nil
}
