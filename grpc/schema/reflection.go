package schema

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/tressi/tressi/grpc"
)

// The reflection services' streaming method, newest first: grpc-go serves
// both, older servers only v1alpha.
var reflectionMethods = []string{
	"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
	"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
}

// Fields of grpc/reflection/v1/reflection.proto (v1alpha's are the same).
const (
	reqFileByFilename       = 3
	reqFileContainingSymbol = 4
	reqListServices         = 7
	respFileDescriptor      = 4
	respListServices        = 6
	respError               = 7
)

// FromReflection asks the reflection service of the server at base (an
// http:// URL for h2c, https:// for TLS with tlsConfig) for every service
// it lists and the files they need. The reflection services themselves
// are left out.
func FromReflection(ctx context.Context, base *url.URL, tlsConfig *tls.Config) (*Schema, error) {
	rc := newReflectionClient(base, tlsConfig)
	defer rc.tr.CloseIdleConnections()
	replies, err := rc.ask(ctx, listServicesRequest())
	if err != nil {
		return nil, err
	}
	var services []string
	for _, r := range replies {
		services = append(services, r.services...)
	}
	var symbols [][]byte
	for _, s := range services {
		if !strings.HasPrefix(s, "grpc.reflection.") {
			symbols = append(symbols, stringRequest(reqFileContainingSymbol, s))
		}
	}
	if len(symbols) == 0 {
		return nil, fmt.Errorf("the reflection service at %s lists no service but itself", base.Redacted())
	}
	files := map[string]*descriptorpb.FileDescriptorProto{}
	for len(symbols) > 0 {
		replies, err := rc.ask(ctx, symbols...)
		if err != nil {
			return nil, err
		}
		for _, r := range replies {
			for _, fd := range r.files {
				files[fd.GetName()] = fd
			}
		}
		symbols = missingImports(files)
	}
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range files {
		set.File = append(set.File, fd)
	}
	return fromSet(set)
}

// missingImports asks for the files imported but not yet received.
func missingImports(files map[string]*descriptorpb.FileDescriptorProto) [][]byte {
	var out [][]byte
	asked := map[string]bool{}
	for _, fd := range files {
		for _, dep := range fd.GetDependency() {
			if files[dep] == nil && !asked[dep] {
				asked[dep] = true
				out = append(out, stringRequest(reqFileByFilename, dep))
			}
		}
	}
	return out
}

type reflectionClient struct {
	base   *url.URL
	tr     *http2.Transport
	method int // index into reflectionMethods that the server answers
}

func newReflectionClient(base *url.URL, tlsConfig *tls.Config) *reflectionClient {
	plain := base.Scheme == "http"
	tr := &http2.Transport{
		AllowHTTP:       plain,
		TLSClientConfig: tlsConfig,
		DialTLSContext: func(ctx context.Context, network, addr string, cfg *tls.Config) (net.Conn, error) {
			if plain {
				var d net.Dialer
				return d.DialContext(ctx, network, addr)
			}
			d := tls.Dialer{Config: cfg}
			return d.DialContext(ctx, network, addr)
		},
	}
	return &reflectionClient{base: base, tr: tr}
}

// reflectionReply is what one response message said.
type reflectionReply struct {
	services []string
	files    []*descriptorpb.FileDescriptorProto
}

// ask sends requests on one call, half-closes it and reads every reply,
// moving to the older reflection service when the server lacks the newer.
func (rc *reflectionClient) ask(ctx context.Context, requests ...[]byte) ([]reflectionReply, error) {
	for {
		replies, code, msg, err := rc.call(ctx, reflectionMethods[rc.method], requests)
		if err != nil {
			return nil, fmt.Errorf("reflection at %s: %v", rc.base.Redacted(), err)
		}
		if code == grpc.Unimplemented && rc.method+1 < len(reflectionMethods) {
			rc.method++
			continue
		}
		if code != grpc.OK {
			return nil, fmt.Errorf("reflection at %s answered %s: %s (does the server register the reflection service?)", rc.base.Redacted(), code, msg)
		}
		return replies, nil
	}
}

func (rc *reflectionClient) call(ctx context.Context, method string, requests [][]byte) ([]reflectionReply, grpc.Code, string, error) {
	var body []byte
	for _, r := range requests {
		body = grpc.AppendMessage(body, r, false)
	}
	u := *rc.base
	u.Path = strings.TrimSuffix(u.Path, "/") + method
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, 0, "", err
	}
	req.Header.Set("content-type", "application/grpc")
	req.Header.Set("te", "trailers")
	resp, err := rc.tr.RoundTrip(req)
	if err != nil {
		return nil, 0, "", err
	}
	defer resp.Body.Close()
	var replies []reflectionReply
	var rd grpc.Reader
	var decodeErr error
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if ferr := rd.Feed(buf[:n], func(m []byte, compressed bool) {
			r, err := decodeReply(m)
			if err != nil && decodeErr == nil {
				decodeErr = err
			}
			replies = append(replies, r)
		}); ferr != nil {
			return nil, 0, "", ferr
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, "", err
		}
	}
	if decodeErr != nil {
		return nil, 0, "", decodeErr
	}
	status := resp.Trailer.Get("grpc-status")
	msg := resp.Trailer.Get("grpc-message")
	if status == "" { // Trailers-Only: the status came with the headers
		status, msg = resp.Header.Get("grpc-status"), resp.Header.Get("grpc-message")
	}
	if status == "" {
		if resp.StatusCode != http.StatusOK {
			return nil, grpc.FromHTTPStatus(resp.StatusCode), resp.Status, nil
		}
		return nil, 0, "", errors.New("the server sent no grpc-status")
	}
	return replies, grpc.ParseStatus([]byte(status)), grpc.DecodeMessage(msg), nil
}

func listServicesRequest() []byte { return stringRequest(reqListServices, "*") }

func stringRequest(field protowire.Number, s string) []byte {
	b := protowire.AppendTag(nil, field, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// decodeReply reads a ServerReflectionResponse: the services listed, the
// files sent, or the error the service reported.
func decodeReply(m []byte) (reflectionReply, error) {
	var r reflectionReply
	err := eachBytesField(m, func(num protowire.Number, v []byte) error {
		switch num {
		case respListServices:
			return eachBytesField(v, func(n protowire.Number, svc []byte) error {
				if n == 1 {
					return eachBytesField(svc, func(n protowire.Number, name []byte) error {
						if n == 1 {
							r.services = append(r.services, string(name))
						}
						return nil
					})
				}
				return nil
			})
		case respFileDescriptor:
			return eachBytesField(v, func(n protowire.Number, raw []byte) error {
				if n != 1 {
					return nil
				}
				fd := &descriptorpb.FileDescriptorProto{}
				if err := proto.Unmarshal(raw, fd); err != nil {
					return fmt.Errorf("a file descriptor the server sent does not decode: %v", err)
				}
				r.files = append(r.files, fd)
				return nil
			})
		case respError:
			var code uint64
			var msg string
			rest := v
			for len(rest) > 0 {
				n, typ, l := protowire.ConsumeTag(rest)
				if l < 0 {
					return protowire.ParseError(l)
				}
				rest = rest[l:]
				switch {
				case n == 1 && typ == protowire.VarintType:
					code, l = protowire.ConsumeVarint(rest)
				case n == 2 && typ == protowire.BytesType:
					var b []byte
					b, l = protowire.ConsumeBytes(rest)
					msg = string(b)
				default:
					l = protowire.ConsumeFieldValue(n, typ, rest)
				}
				if l < 0 {
					return protowire.ParseError(l)
				}
				rest = rest[l:]
			}
			return fmt.Errorf("the reflection service answered %s: %s", grpc.Code(code), msg)
		}
		return nil
	})
	return r, err
}

// eachBytesField calls f for every length-delimited field of message m,
// skipping the others.
func eachBytesField(m []byte, f func(protowire.Number, []byte) error) error {
	for len(m) > 0 {
		num, typ, n := protowire.ConsumeTag(m)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m = m[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, m)
			if n < 0 {
				return protowire.ParseError(n)
			}
			m = m[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(m)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m = m[n:]
		if err := f(num, v); err != nil {
			return err
		}
	}
	return nil
}
