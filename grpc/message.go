package grpc

// DecodeMessage undoes grpc-message's percent-encoding (gRPC's
// PROTOCOL-HTTP2.md: "%" followed by two hex digits stands for a byte; a
// malformed escape stays as written, as grpc-go reads it).
func DecodeMessage(v string) string {
	i := 0
	for i < len(v) && v[i] != '%' {
		i++
	}
	if i == len(v) {
		return v
	}
	out := make([]byte, 0, len(v))
	out = append(out, v[:i]...)
	for ; i < len(v); i++ {
		if v[i] == '%' && i+2 < len(v) {
			hi, ok1 := unhex(v[i+1])
			lo, ok2 := unhex(v[i+2])
			if ok1 && ok2 {
				out = append(out, hi<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, v[i])
	}
	return string(out)
}

// EncodeMessage percent-encodes a status message for grpc-message: bytes
// outside printable ASCII, and '%', as %XX.
func EncodeMessage(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var out []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '%' {
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(s)+8), s[:i]...)
		}
		out = append(out, '%', hexDigits[c>>4], hexDigits[c&0xf])
	}
	if out == nil {
		return s
	}
	return string(out)
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
