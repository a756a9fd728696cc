package testserver

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// h2Client is Go's HTTP client speaking only the protocols given.
func h2Client(h1, h2, h2c bool, roots *x509.CertPool) *http.Client {
	tr := &http.Transport{Protocols: new(http.Protocols), TLSClientConfig: &tls.Config{RootCAs: roots}}
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
		name     string
		tls      bool
		h2, h1   *http.Client
		wantHTTP int
	}{
		{"h2c", false, h2Client(false, false, true, nil), h2Client(true, false, false, nil), 2},
		{"h2 over TLS", true, h2Client(false, true, false, roots), h2Client(true, false, false, roots), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
				status, proto, body := fetch(t, tc.h2, c.method, base+c.path, c.body)
				if status != c.status || proto != tc.wantHTTP || (c.want != "" && body != c.want) {
					t.Errorf("%s %s over HTTP/2: status %d, HTTP/%d, body %q; want %d, HTTP/%d, %q", c.method, c.path, status, proto, body, c.status, tc.wantHTTP, c.want)
				}
				if c.path == "/bytes/3000" && len(body) != 3000 {
					t.Errorf("/bytes/3000 over HTTP/2: %d bytes", len(body))
				}
				if c.path == "/echo" && !strings.Contains(body, `"body":"hello"`) {
					t.Errorf("/echo over HTTP/2 did not echo the body: %s", body)
				}
			}
			if status, proto, body := fetch(t, tc.h1, "GET", base+"/", ""); status != 200 || proto != 1 || body != "ok\n" {
				t.Errorf("HTTP/1.1 beside HTTP/2: status %d, HTTP/%d, %q", status, proto, body)
			}
			st := s.Stats()
			if st.Requests != 6 || st.ConnsAccepted != 2 {
				t.Errorf("stats: %d requests on %d connections, want 6 on 2 (one HTTP/2, one HTTP/1.1)", st.Requests, st.ConnsAccepted)
			}
		})
	}
}
