// Command grpctarget serves the built-in gRPC target (testserver/grpctarget)
// for bench/grpc: the same grpc-go server for tressi and ghz.
//
// It prints "listening on grpc://HOST:PORT" and "stats on http://HOST:PORT",
// where GET /calls answers the calls it ended so far (every method and
// code) and POST /stall?ms=500 opens a stall window: calls arriving within
// it wait until it ends. It serves until SIGINT/SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/tressi/tressi/testserver/grpctarget"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address for gRPC")
	stats := flag.String("stats", "127.0.0.1:0", "loopback address for the counters and the stall switch")
	flag.Parse()
	if err := run(*addr, *stats); err != nil {
		fmt.Fprintln(os.Stderr, "grpctarget:", err)
		os.Exit(1)
	}
}

func loopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%s is not a loopback address: benchmarks stay on this machine", addr)
	}
	return net.Listen("tcp", addr)
}

func run(addr, statsAddr string) error {
	ln, err := loopback(addr)
	if err != nil {
		return err
	}
	sln, err := loopback(statsAddr)
	if err != nil {
		return err
	}
	srv, err := grpctarget.New(grpctarget.Options{})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /calls", func(w http.ResponseWriter, _ *http.Request) {
		var n int64
		for _, c := range srv.Calls() {
			n += c
		}
		fmt.Fprintln(w, n)
	})
	mux.HandleFunc("GET /summary", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, srv.Summary()) })
	// GET /messages: by method, the request messages read and the replies
	// sent, one "method read sent" line each (bench/grpc's bidi case).
	mux.HandleFunc("GET /messages", func(w http.ResponseWriter, _ *http.Request) {
		read, sent := srv.Messages(), srv.Replies()
		for _, m := range slices.Sorted(maps.Keys(read)) {
			fmt.Fprintf(w, "%s %d %d\n", m, read[m], sent[m])
		}
	})
	mux.HandleFunc("POST /stall", func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
		if err != nil || ms <= 0 {
			http.Error(w, "want ?ms=N", http.StatusBadRequest)
			return
		}
		srv.Stall(time.Duration(ms) * time.Millisecond)
	})
	hs := &http.Server{Handler: mux}
	go hs.Serve(sln)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Printf("listening on grpc://%s\nstats on http://%s\n", ln.Addr(), sln.Addr())
	select {
	case <-ctx.Done():
		srv.Stop()
		return hs.Close()
	case err := <-served:
		return err
	}
}
