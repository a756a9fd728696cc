package cli

import (
	"fmt"
	"net"
	"time"

	"github.com/spf13/pflag"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec"
	"github.com/tressi/tressi/internal/dashboard"
	"github.com/tressi/tressi/internal/live"
)

// liveFlags are apply's ways to watch a run while it runs.
type liveFlags struct {
	dashboard string // listen address; "" for none
	linger    time.Duration
}

func (l *liveFlags) bind(fl *pflag.FlagSet) {
	fl.StringVar(&l.dashboard, "dashboard", "", "serve a live dashboard of the run at `ADDR` (alone: "+dashboard.DefaultAddr+
		"; :0 picks a free port;\na host other than loopback only when named)")
	fl.Lookup("dashboard").NoOptDefVal = dashboard.DefaultAddr
	fl.DurationVar(&l.linger, "dashboard-linger", 0, "keep the dashboard up this long after the run ended (the run never waits for a browser)")
}

func (l *liveFlags) any() bool { return l.dashboard != "" }

// liveViews are a run's live outputs while it runs.
type liveViews struct {
	feed    *live.Feed
	stop    chan struct{}
	servers []interface{ Close() error }
	linger  time.Duration
}

// startLive starts what l asks for and hooks its feed into opt; nil when
// nothing was asked for. What listens is up before the run starts, so a
// shard waiting for its --start-at already serves it.
func startLive(e *env, s *compile.Schedule, opt *exec.Options, l *liveFlags) (*liveViews, error) {
	if l == nil || !l.any() {
		return nil, nil
	}
	run := live.RunInfo{Plan: s.Name, Shard: opt.Shard.String(), PlannedNs: int64(s.Duration)}
	if s.Model == compile.Open {
		run.Slots = opt.Shard.Slots(s.Count)
	}
	v := &liveViews{feed: live.NewFeed(run), stop: make(chan struct{}), linger: l.linger}
	if l.dashboard != "" {
		ln, err := listenFor(e, "--dashboard", l.dashboard)
		if err != nil {
			return nil, err
		}
		v.servers = append(v.servers, dashboard.Serve(ln, v.feed))
		fmt.Fprintf(e.stderr, "Dashboard: %s\n", dashboard.URL(ln))
	}
	opt.Observe, opt.Started = v.feed.Observe, v.feed.Started
	go v.feed.Run(v.stop)
	return v, nil
}

func listenFor(e *env, flag, addr string) (net.Listener, error) {
	ln, warning, err := dashboard.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if warning != "" {
		fmt.Fprintf(e.stderr, "Warning: %s %s\n", flag, warning)
	}
	return ln, nil
}

// finish publishes the run's last update: every row is in it.
func (v *liveViews) finish() {
	if v == nil {
		return
	}
	close(v.stop)
	<-v.feed.Done()
}

// close keeps the dashboard up for the linger (or until interrupt), then
// closes everything.
func (v *liveViews) close(interrupt <-chan struct{}) {
	if v == nil {
		return
	}
	if v.linger > 0 {
		select {
		case <-time.After(v.linger):
		case <-interrupt:
		}
	}
	for _, s := range v.servers {
		_ = s.Close()
	}
}
