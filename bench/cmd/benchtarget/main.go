// Command benchtarget serves the built-in target for bench/run and
// bench/scaling. It is testserver.New and nothing else, so the server being hit
// is the same whichever version of the tressi CLI is being measured.
//
// It prints "listening on http://HOST:PORT" and serves until SIGINT/SIGTERM;
// the scripts read counters from GET /__stats between runs.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/tressi/tressi/testserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	flag.Parse()
	if err := run(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "benchtarget:", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s is not a loopback address: benchmarks stay on this machine", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := testserver.New(testserver.Options{})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Printf("listening on http://%s\n", ln.Addr())
	select {
	case <-ctx.Done():
		return srv.Close()
	case err := <-served:
		return err
	}
}
