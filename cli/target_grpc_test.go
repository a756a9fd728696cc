package cli

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/grpc/schema"
)

// `tressi target --grpc` serves the gRPC target: its reflection service
// gives the schema plans load, and it stops on cancel with its counters.
func TestTargetGRPCServesReflection(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- runTarget(ctx, targetOptions{addr: "127.0.0.1:0", grpc: true}, &out) }()
	var addr string
	for deadline := time.Now().Add(5 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := regexp.MustCompile(`listening on grpc://(127\.0\.0\.1:\d+)\n`).FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("target said %q", out.String())
	}
	rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
	defer rcancel()
	sc, err := schema.FromReflection(rctx, &url.URL{Scheme: "http", Host: addr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Method("tressibench.Echo/Unary"); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the gRPC target did not stop")
	}
	if !strings.Contains(out.String(), "calls by method and code:") {
		t.Fatalf("no counters printed: %q", out.String())
	}
}
