package h2

import (
	"bytes"
	"errors"
)

var errHTTP1 = errors.New("h2: not an HTTP/1.1 request")

// FromHTTP1 fills req from an HTTP/1.1 request as it would go on the wire
// (request line, header fields, body), so the engines render a request
// once, in one way, and HTTP/2 sends what HTTP/1.1 would have meant: the
// method, the request-target as :path, Host as :authority, the fields less
// the connection-specific ones, the body. req's slices point into wire,
// and req.Fields' storage is reused.
func FromHTTP1(wire, scheme []byte, req *Request) error {
	line, rest, ok := cutLine(wire)
	if !ok {
		return errHTTP1
	}
	method, line, ok1 := bytes.Cut(line, []byte(" "))
	target, _, ok2 := bytes.Cut(line, []byte(" "))
	if !ok1 || !ok2 || len(method) == 0 || len(target) == 0 {
		return errHTTP1
	}
	*req = Request{Method: method, Scheme: scheme, Path: target, Fields: req.Fields[:0]}
	for {
		line, rest, ok = cutLine(rest)
		if !ok {
			return errHTTP1
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 {
			return errHTTP1
		}
		value = bytes.TrimSpace(value)
		if len(name) == 4 && bytes.EqualFold(name, []byte("host")) {
			req.Authority = value
			continue
		}
		req.Fields = append(req.Fields, Field{Name: name, Value: value})
	}
	if len(req.Authority) == 0 {
		return errHTTP1
	}
	req.Body = rest
	return nil
}

func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, b, false
	}
	return bytes.TrimSuffix(b[:i], []byte("\r")), b[i+1:], true
}
