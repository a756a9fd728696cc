package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/testserver"
)

func init() { register(newTargetCmd) }

// targetOptions are the flags of `tressi target`.
type targetOptions struct {
	addr        string
	allowRemote bool
	tls         bool   // serve HTTPS (h2 and http/1.1 by ALPN) with a certificate made at start
	caOut       string // where --tls writes that certificate for clients to trust
	grpc        bool   // serve the gRPC target (tressibench.Echo, health, reflection) instead
}

func newTargetCmd(e *env) *cobra.Command {
	var o targetOptions
	cmd := &cobra.Command{
		Use:   "target",
		Short: "Run the built-in test server on loopback",
		Long: `Run the built-in test server until interrupted (SIGINT/SIGTERM).

Routes: GET / ("ok"), /status/{code}, /delay/{ms}, /echo, POST /login -> {"token"},
GET /me (Authorization: Bearer <token>), /bytes/{n}, POST /upload (says what a multipart,
form or binary body held: fields, file sizes and SHA-256), /queue?service=500us (one FIFO
queue with that service time per request: capacity 1/service), GET /__stats (request and
connection counters as JSON), and two WebSocket endpoints: /ws/echo (echoes each
message; {"delay_ms":N} comes back late, ?close_after=N closes) and /v0/channels,
which speaks enough of Tinode's protocol for examples/tinode. The routes answer over HTTP/1.1 and
over h2c (HTTP/2 with prior knowledge, as protocol = "h2c" sends it) on the same port. Routes that
misbehave on purpose, for testing clients: /fault/unsolicited (answers 200, then an unasked-for 503
on the same connection), /fault/ws/extension (a 101 naming an extension never offered),
/fault/ws/close?code=1011&reason=TEXT (closes on the first message), /fault/ws/rsv1,
/fault/ws/utf8 and /fault/ws/bigping (answer with the RSV1 bit set, a text frame that is
not UTF-8, a 126-byte ping). For HTTP client features: /cookie/login (sets a fresh session
cookie "sid"), /cookie/me (200 with that cookie, 401 without), /cookie/logout (deletes it), counted
under "cookies" in /__stats (logins, distinct sessions seen, their fewest and most requests);
/redirect/{n} (n hops of 302 to "ok"; ?code=301|302|303|307|308, ?to=PATH-OR-URL for the last hop, ?rel=1 for relative Locations);
/basic-auth/{user}/{pass} and /digest-auth/auth/{user}/{pass}[/MD5|SHA-256] (401 with a Basic or
Digest challenge until answered, as httpbin's); /host (answers the Host header it got); /json (a known JSON document for checks;
?pad=N adds N bytes of padding before its end, ?chunked=1 sends it chunked in 1000-byte writes).
It prints "listening on http://HOST:PORT", so
--addr 127.0.0.1:0 picks a free port that scripts can read.

With --tls it serves HTTPS instead, offering h2 and http/1.1 by ALPN (so protocol = "h2"
and "auto" speak HTTP/2 to it), with a self-signed certificate for 127.0.0.1, ::1 and
localhost made at start and valid for a day. It writes that certificate to --ca-out
(default tressi-target-ca.pem in the system's temporary directory) and prints
"CA certificate: FILE" before the listening line: pass the file as a plan's
tls { ca_file }.

With --grpc it serves the built-in gRPC target instead, over h2c (or h2 with --tls): the
tressibench.Echo service of testserver/grpctarget/tressibench.proto (Unary, ServerStream,
ClientStream, Bidi; a request's code field fails the call with that gRPC code, delay_ms holds
it back), the standard health service, and server reflection (v1 and v1alpha), so a plan can
say proto { reflection = true }. It prints "listening on grpc://HOST:PORT" (grpcs:// with
--tls) and, when stopped, the calls it answered by method and code.`,
		Example: "  tressi target\n" +
			"  tressi target --addr 127.0.0.1:0\n" +
			"  tressi target --tls --addr 127.0.0.1:8443 --ca-out ca.pem\n" +
			"  tressi target --grpc --addr 127.0.0.1:50051",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return runTarget(ctx, o, e.stdout)
		},
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	cmd.Flags().BoolVar(&o.allowRemote, "allow-remote", false, "allow an address other machines can reach")
	cmd.Flags().BoolVar(&o.tls, "tls", false, "serve HTTPS (h2 and http/1.1 by ALPN) with a self-signed certificate made at start")
	cmd.Flags().BoolVar(&o.grpc, "grpc", false, "serve the built-in gRPC target (tressibench.Echo, health, reflection) instead of HTTP")
	cmd.Flags().StringVar(&o.caOut, "ca-out", "", "with --tls: the `file` to write the certificate to, for clients to trust\n"+
		"(default: tressi-target-ca.pem in the temporary directory)")
	return cmd
}

// runTarget serves until ctx is done. It is the command without the signal
// handling, so tests can stop it with a context.
func runTarget(ctx context.Context, o targetOptions, stdout io.Writer) error {
	if err := checkLoopback(o.addr, o.allowRemote); err != nil {
		return withCode(ExitInvalid, err)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return withCode(ExitInvalid, fmt.Errorf("target: %w", err))
	}
	scheme := "http"
	if o.tls {
		if ln, err = listenTLS(ln, o.caOut, stdout); err != nil {
			return withCode(ExitInternal, err)
		}
		scheme = "https"
	} else if o.caOut != "" {
		ln.Close()
		return withCode(ExitInvalid, errors.New("--ca-out goes with --tls: without it the target serves plain HTTP and has no certificate"))
	}
	if o.grpc {
		return runGRPCTarget(ctx, ln, map[string]string{"http": "grpc", "https": "grpcs"}[scheme], stdout)
	}
	srv := testserver.New(testserver.Options{})
	if err := serveUntilDone(ctx, ln, scheme, "", srv.Serve, stdout); err != nil {
		return err
	}
	if err := srv.Close(); err != nil {
		return withCode(ExitInternal, fmt.Errorf("target: shutting down: %w", err))
	}
	st := srv.Stats()
	fmt.Fprintf(stdout, "served %d requests on %d connections\n", st.Requests, st.ConnsAccepted)
	return nil
}

// listenTLS wraps ln in TLS with a certificate made now, written to caOut
// (or the default file) for clients to trust.
func listenTLS(ln net.Listener, caOut string, stdout io.Writer) (net.Listener, error) {
	cfg, certPEM, err := testserver.SelfSigned()
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("target: %w", err)
	}
	if caOut == "" {
		caOut = filepath.Join(os.TempDir(), "tressi-target-ca.pem")
	}
	if err := os.WriteFile(caOut, certPEM, 0o644); err != nil {
		ln.Close()
		return nil, fmt.Errorf("target: writing the certificate for clients: %w (choose another file with --ca-out)", err)
	}
	fmt.Fprintf(stdout, "CA certificate: %s\n", caOut)
	return tls.NewListener(ln, cfg), nil
}

// checkLoopback refuses addresses other machines could reach unless
// allowRemote: a test server answering anyone invites load from anywhere,
// and a load tool's defaults must not point at the world by accident.
func checkLoopback(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w (want host:port, e.g. 127.0.0.1:8080)", addr, err)
	}
	if allowRemote || isLoopbackHost(host) {
		return nil
	}
	if host == "" {
		host = "all interfaces"
	}
	return errors.New("--addr " + addr + ": " + host + " is not a loopback address; " +
		"the test server would be reachable from other machines. " +
		"Use 127.0.0.1, ::1 or localhost, or pass --allow-remote if that is what you want")
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveUntilDone serves ln with serve, prints the address scripts read,
// and returns once ctx is done (nil) or serving failed.
func serveUntilDone(ctx context.Context, ln net.Listener, scheme, what string, serve func(net.Listener) error, stdout io.Writer) error {
	served := make(chan error, 1)
	go func() { served <- serve(ln) }()
	fmt.Fprintf(stdout, "listening on %s://%s\n", scheme, ln.Addr())
	select {
	case <-ctx.Done():
		return nil
	case err := <-served:
		return withCode(ExitInternal, fmt.Errorf("target: serving %s%s: %w", what, ln.Addr(), err))
	}
}
