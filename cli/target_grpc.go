package cli

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/tressi/tressi/testserver/grpctarget"
)

// runGRPCTarget serves the built-in gRPC target (tressi target --grpc) on
// ln until ctx is done, then prints its calls by method and code.
func runGRPCTarget(ctx context.Context, ln net.Listener, scheme string, stdout io.Writer) error {
	srv, err := grpctarget.New(grpctarget.Options{})
	if err != nil {
		ln.Close()
		return withCode(ExitInternal, err)
	}
	if err := serveUntilDone(ctx, ln, scheme, "gRPC on ", srv.Serve, stdout); err != nil {
		return err
	}
	srv.Stop()
	fmt.Fprintln(stdout, "calls by method and code:")
	if s := srv.Summary(); s != "" {
		fmt.Fprintln(stdout, s)
	}
	return nil
}
