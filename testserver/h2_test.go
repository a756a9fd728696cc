package testserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// h2Client is Go's HTTP client speaking only the protocols given; dials
// counts the connections it opens.
func h2Client(h1, h2, h2c bool, roots *x509.CertPool, dials *atomic.Int64) *http.Client {
	var d net.Dialer
	tr := &http.Transport{Protocols: new(http.Protocols), TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, addr)
		}}
	tr.Protocols.SetHTTP1(h1)
	tr.Protocols.SetHTTP2(h2)
	tr.Protocols.SetUnencryptedHTTP2(h2c)
	return &http.Client{Transport: tr}
}

// fetch sends method url with body and returns the status, the protocol
// major version and the body.
func fetch(t *testing.T, c *http.Client, method, url, body string) (int, int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.ProtoMajor, string(b)
}

// The routes answer over h2c (prior knowledge) and over HTTP/2 by ALPN on
// a TLS listener, as over HTTP/1.1 on the same listener; the counters see
// the requests and the connections of both.
func TestHTTP2RoutesAnswerAsHTTP1Ones(t *testing.T) {
	cert := httptest.NewUnstartedServer(nil)
	cert.StartTLS() // for a throwaway certificate and its pool only
	cert.Close()
	roots := x509.NewCertPool()
	roots.AddCert(cert.Certificate())

	for _, tc := range []struct {
		name        string
		tls         bool
		h1, h2, h2c bool
	}{
		{"h2c", false, false, false, true},
		{"h2 over TLS", true, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Go's client may open a second connection where it could have
			// reused the first (CI saw three once), so the server's count is
			// held to the connections the clients opened, at least one each.
			var dials atomic.Int64
			h2 := h2Client(tc.h1, tc.h2, tc.h2c, roots, &dials)
			h1 := h2Client(true, false, false, roots, &dials)
			const wantHTTP = 2
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			scheme := "http"
			if tc.tls {
				ln = tls.NewListener(ln, H2TLSConfig(&tls.Config{Certificates: cert.TLS.Certificates}))
				scheme = "https"
			}
			s := New(Options{})
			go s.Serve(ln)
			t.Cleanup(func() { s.Close() })
			base := scheme + "://" + ln.Addr().String()

			for _, c := range []struct {
				method, path, body string
				status             int
				want               string
			}{
				{"GET", "/", "", 200, "ok\n"},
				{"POST", "/echo", "hello", 200, ""},
				{"GET", "/status/503", "", 503, ""},
				{"GET", "/bytes/3000", "", 200, ""},
				{"GET", "/no-such-route", "", 404, "not found\n"},
			} {
				status, proto, body := fetch(t, h2, c.method, base+c.path, c.body)
				if status != c.status || proto != wantHTTP || (c.want != "" && body != c.want) {
					t.Errorf("%s %s over HTTP/2: status %d, HTTP/%d, body %q; want %d, HTTP/%d, %q", c.method, c.path, status, proto, body, c.status, wantHTTP, c.want)
				}
				if c.path == "/bytes/3000" && len(body) != 3000 {
					t.Errorf("/bytes/3000 over HTTP/2: %d bytes", len(body))
				}
				if c.path == "/echo" && !strings.Contains(body, `"body":"hello"`) {
					t.Errorf("/echo over HTTP/2 did not echo the body: %s", body)
				}
			}
			if status, proto, body := fetch(t, h1, "GET", base+"/", ""); status != 200 || proto != 1 || body != "ok\n" {
				t.Errorf("HTTP/1.1 beside HTTP/2: status %d, HTTP/%d, %q", status, proto, body)
			}
			st := s.Stats()
			if n := uint64(dials.Load()); st.Requests != 6 || st.ConnsAccepted != n || n < 2 {
				t.Errorf("stats: %d requests on %d connections, want 6 on the %d the clients opened (at least one HTTP/2, one HTTP/1.1)", st.Requests, st.ConnsAccepted, n)
			}
		})
	}
}
