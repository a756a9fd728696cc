package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/internal/dashboard"
	"github.com/tressi/tressi/internal/live"
)

func init() { register(newWatch) }

func newWatch(e *env) *cobra.Command {
	var (
		addr   string
		linger time.Duration
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "watch ADDR...",
		Short: "Watch the shards of a run live, merged into one view",
		Long: "Watch reads the live streams of the dashboards at ADDR... (each shard's tressi apply\n" +
			"--dashboard, as HOST:PORT or its URL) and merges them exactly: counts summed, histograms\n" +
			"merged, never percentiles averaged. It prints one progress line and, with --dashboard,\n" +
			"serves the merged page. It waits for shards not up yet (one waiting for its --start-at\n" +
			"already serves), and ends when every shard has ended; with --json it prints the merged\n" +
			"totals with the keys of tressi report --format json. A shard that may end before watch\n" +
			"connects needs --dashboard-linger.",
		Example: "  tressi watch 10.0.0.1:5665 10.0.0.2:5665 10.0.0.3:5665 10.0.0.4:5665\n" +
			"  tressi watch 127.0.0.1:5665 127.0.0.1:5666 --dashboard=:0 --json > merged.json",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(e, args, addr, linger, asJSON)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&addr, "dashboard", "", "serve the merged dashboard at `ADDR` (alone: "+dashboard.DefaultAddr+"; :0 picks a free port)")
	fl.Lookup("dashboard").NoOptDefVal = dashboard.DefaultAddr
	fl.DurationVar(&linger, "dashboard-linger", 0, "keep the merged dashboard up this long after every shard ended")
	fl.BoolVar(&asJSON, "json", false, "print the merged totals as JSON at the end (keys of tressi report --format json)")
	return cmd
}

func runWatch(e *env, addrs []string, addr string, linger time.Duration, asJSON bool) error {
	merge := live.NewMerge(len(addrs))
	if addr != "" {
		ln, err := listenFor(e, "--dashboard", addr)
		if err != nil {
			return withCode(ExitInvalid, err)
		}
		srv := dashboard.Serve(ln, merge)
		defer srv.Close()
		fmt.Fprintf(e.stderr, "Dashboard: %s\n", dashboard.URL(ln))
	}
	interrupt, release := catchSignals(e)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-interrupt:
			cancel()
		case <-ctx.Done():
		}
	}()
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = dashboard.Follow(ctx, a, func(u live.Update) { merge.Apply(i, u) }) // ends with ctx or the shard
		}()
	}
	line := watchLine{out: e.stderr, terminal: isTerminal(e.stderr), quiet: asJSON && !isTerminal(e.stderr)}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-merge.Done():
			done = true
		case <-ctx.Done():
			wg.Wait()
			return withCode(ExitInterrupted, nil)
		case <-tick.C:
			line.print(merge.View())
		}
	}
	line.print(merge.View())
	line.end()
	if asJSON {
		if err := printJSON(e, merge.View().Totals()); err != nil {
			return err
		}
	}
	if linger > 0 && addr != "" {
		select {
		case <-time.After(linger):
		case <-interrupt:
		}
	}
	return nil
}

// watchLine is watch's progress line: redrawn on a terminal, a line every
// second elsewhere.
type watchLine struct {
	out             io.Writer
	terminal, quiet bool
}

func (l *watchLine) print(v *live.View) {
	if l.quiet {
		return
	}
	run, t, g := v.Run(), v.Totals(), v.LastGauges()
	s := fmt.Sprintf("%s  %s  %.1fs / %.1fs  requests %d  ok %d  errors %d  p50 %.3fms  p99 %.3fms  connections %d  sessions %d  in flight %d",
		run.Shard, run.State, float64(max(g.T, 0))/1e9, float64(run.PlannedNs)/1e9, t.Requests, t.OK, t.Errors,
		t.Latency.P50, t.Latency.P99, g.Connections, g.Sessions, g.InFlight)
	if l.terminal {
		fmt.Fprintf(l.out, "\r\x1b[K%s", s)
	} else {
		fmt.Fprintln(l.out, s)
	}
}

func (l *watchLine) end() {
	if l.terminal && !l.quiet {
		fmt.Fprintln(l.out)
	}
}
