// Command floor measures this machine's per-request floor for HTTP/1.1 on
// loopback: one thread, one epoll set, raw non-blocking sockets, a fixed
// request written as is and the response read by its byte count, with no
// parsing and no recording. What a request costs here is what the kernel
// charges for one send and one receive on an established connection plus an
// epoll share; bench/floor divides every engine's CPU per request by it.
//
//	floor --url http://127.0.0.1:8080/ --conns 10 --duration 5s          # closed: 10 connections, back to back
//	floor --url http://127.0.0.1:8080/ --conns 50 --rate 20000 --duration 5s  # open: 20k req/s on 50 connections
//	floor --url http://127.0.0.1:8080/ --conns 10 --uring                 # closed, through io_uring
//
// It prints one JSON object: requests, seconds, CPU (user, sys) and CPU per
// request over the measured window (after connecting and one warm-up
// exchange per connection); in the open model also the requests sent over
// 1 ms late.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	var o options
	flag.StringVar(&o.url, "url", "", "target URL on loopback (http://127.0.0.1:PORT/PATH)")
	flag.IntVar(&o.conns, "conns", 1, "connections")
	flag.Float64Var(&o.rate, "rate", 0, "open model: requests per second (0: closed model, each connection back to back)")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "measured time")
	flag.BoolVar(&o.uring, "uring", false, "closed model through io_uring (one io_uring_enter per wake-up) instead of epoll and read/write")
	flag.Parse()
	// One thread does everything, as an event loop does.
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	res, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(res)
}

type options struct {
	url      string
	conns    int
	rate     float64
	duration time.Duration
	uring    bool
}

// result is floor's output.
type result struct {
	Conns      int     `json:"conns"`
	Rate       float64 `json:"rate,omitempty"`
	Requests   int64   `json:"requests"`
	Seconds    float64 `json:"seconds"`
	UserS      float64 `json:"user_s"`
	SysS       float64 `json:"sys_s"`
	CPUUsPerRq float64 `json:"cpu_us_per_req"`
	// Late counts requests that went out over 1 ms past their due
	// instant (open model): a floor that falls behind is no floor.
	Late int64 `json:"late,omitempty"`
	// Wait is what the open model sleeps in: epoll_pwait2, or epoll_wait
	// (whole milliseconds) on kernels before 5.11.
	Wait         string `json:"wait,omitempty"`
	ResponseSize int    `json:"response_bytes"`
	// Backend is how the loop talks to the kernel: epoll, or io_uring.
	Backend string `json:"backend"`
}

func run(o options) (result, error) {
	addr, request, err := target(o.url)
	if err != nil {
		return result{}, err
	}
	if o.conns < 1 || o.duration <= 0 || o.rate < 0 {
		return result{}, errors.New("--conns must be ≥ 1, --duration > 0 and --rate ≥ 0")
	}
	if o.uring && o.rate > 0 {
		return result{}, errors.New("--uring runs the closed model only: leave out --rate")
	}
	if err := raiseFileLimit(o.conns + 16); err != nil {
		return result{}, err
	}
	l, err := newLoop(addr, request, o.conns)
	if err != nil {
		return result{}, err
	}
	defer l.close()
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	start := time.Now()
	backend := "epoll"
	switch {
	case o.rate > 0:
		err = l.open(o.rate, o.duration)
	case o.uring:
		backend = "io_uring"
		err = l.closedUring(o.duration)
	default:
		err = l.closed(o.duration)
	}
	elapsed := time.Since(start)
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	if err != nil {
		return result{}, err
	}
	user := tvSeconds(after.Utime) - tvSeconds(before.Utime)
	sys := tvSeconds(after.Stime) - tvSeconds(before.Stime)
	res := result{Conns: o.conns, Rate: o.rate, Requests: l.done, Seconds: elapsed.Seconds(), UserS: user, SysS: sys,
		Late: l.late, ResponseSize: l.respLen, Backend: backend}
	if o.rate > 0 {
		res.Wait = "epoll_pwait2"
		if l.noPwait2 {
			res.Wait = "epoll_wait"
		}
	}
	if l.done > 0 {
		res.CPUUsPerRq = (user + sys) * 1e6 / float64(l.done)
	}
	return res, nil
}

func tvSeconds(tv unix.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }

// target parses a loopback http URL into its address and the request the
// loop writes: what wrk sends, a GET with Host and nothing more.
func target(raw string) (netip.AddrPort, []byte, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return netip.AddrPort{}, nil, fmt.Errorf("--url %q: want http://127.0.0.1:PORT/PATH", raw)
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil || !ap.Addr().IsLoopback() {
		return netip.AddrPort{}, nil, fmt.Errorf("--url %q: the floor loads loopback only (an IP literal in 127.0.0.0/8 or ::1)", raw)
	}
	path := u.RequestURI()
	return ap, []byte("GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\n\r\n"), nil
}

func raiseFileLimit(need int) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	if lim.Cur >= uint64(need) {
		return nil
	}
	if lim.Max < uint64(need) {
		return fmt.Errorf("%d connections need %d file descriptors, the hard limit is %d (raise it with ulimit -Hn)", need-16, need, lim.Max)
	}
	lim.Cur = lim.Max
	return unix.Setrlimit(unix.RLIMIT_NOFILE, &lim)
}
