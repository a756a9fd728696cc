package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/testserver"
)

func init() { register(newTargetCmd) }

// targetOptions are the flags of `tressi target`.
type targetOptions struct {
	addr        string
	allowRemote bool
}

func newTargetCmd(e *env) *cobra.Command {
	var o targetOptions
	cmd := &cobra.Command{
		Use:   "target",
		Short: "Run the built-in test server on loopback",
		Long: `Run the built-in test server until interrupted (SIGINT/SIGTERM).

Routes: GET / ("ok"), /status/{code}, /delay/{ms}, /echo, POST /login -> {"token"},
GET /me (Authorization: Bearer <token>), /bytes/{n}, /queue?service=500us (one FIFO
queue with that service time per request: capacity 1/service), GET /__stats (request and
connection counters as JSON), and two WebSocket endpoints: /ws/echo (echoes each
message; {"delay_ms":N} comes back late, ?close_after=N closes) and /v0/channels,
which speaks enough of Tinode's protocol for examples/tinode. The routes answer over HTTP/1.1 and
over h2c (HTTP/2 with prior knowledge, as protocol = "h2c" sends it) on the same port. Routes that
misbehave on purpose, for testing clients: /fault/unsolicited (answers 200, then an unasked-for 503
on the same connection), /fault/ws/extension (a 101 naming an extension never offered),
/fault/ws/close?code=1011&reason=TEXT (closes on the first message), /fault/ws/rsv1,
/fault/ws/utf8 and /fault/ws/bigping (answer with the RSV1 bit set, a text frame that is
not UTF-8, a 126-byte ping). It prints "listening on http://HOST:PORT", so
--addr 127.0.0.1:0 picks a free port that scripts can read.`,
		Example: "  tressi target\n" +
			"  tressi target --addr 127.0.0.1:0",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return runTarget(ctx, o, e.stdout)
		},
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	cmd.Flags().BoolVar(&o.allowRemote, "allow-remote", false, "allow an address other machines can reach")
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
	srv := testserver.New(testserver.Options{})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

	select {
	case <-ctx.Done():
	case err := <-served:
		return withCode(ExitInternal, fmt.Errorf("target: serving %s: %w", ln.Addr(), err))
	}
	if err := srv.Close(); err != nil {
		return withCode(ExitInternal, fmt.Errorf("target: shutting down: %w", err))
	}
	st := srv.Stats()
	fmt.Fprintf(stdout, "served %d requests on %d connections\n", st.Requests, st.ConnsAccepted)
	return nil
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
