package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/tressi/tressi/internal/background"
)

// Pusher sends Remote Write 1.0 requests in order from a bounded queue,
// retrying with backoff: a slow or absent receiver never holds the run
// up. Every push carries each series' cumulative value, so when the queue
// overflows dropping its oldest requests loses resolution, never counts.
type Pusher struct {
	url     string
	headers http.Header
	client  *http.Client

	mu      sync.Mutex
	queue   [][]byte // snappy-compressed WriteRequests, oldest first
	dropped int      // requests the full queue let go
	wake    chan struct{}
	closing chan struct{}
	done    chan struct{}
	lastErr error
	// last is every series pushed, by its labels, for the stale markers.
	last   map[string][]Label
	lastMs int64
}

// maxQueue bounds the requests waiting: five minutes of one a second.
const maxQueue = 300

// Backoff between attempts at one request.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// ParseHeaders reads --remote-write-header values, "Name: value".
func ParseHeaders(hs []string) (http.Header, error) {
	out := http.Header{}
	for _, h := range hs {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("header %q: want Name: value, such as \"Authorization: Bearer …\"", redactHeader(h))
		}
		out.Add(name, strings.TrimSpace(value))
	}
	return out, nil
}

// redactHeader keeps a header's name for a message, never its value.
func redactHeader(h string) string {
	if name, _, ok := strings.Cut(h, ":"); ok {
		return name + ": (redacted)"
	}
	return "(redacted)"
}

// NewPusher pushes to url with headers until Close.
func NewPusher(url string, headers http.Header) *Pusher {
	p := &Pusher{url: url, headers: headers, client: &http.Client{Timeout: 10 * time.Second},
		wake: make(chan struct{}, 1), closing: make(chan struct{}), done: make(chan struct{}), last: map[string][]Label{}}
	go p.run()
	return p
}

// Push queues ts; it never blocks. Timestamps are made to increase.
func (p *Pusher) Push(ts []TimeSeries) {
	p.mu.Lock()
	for i := range ts {
		for k := range ts[i].Samples {
			if t := ts[i].Samples[k].Time; t <= p.lastMs {
				ts[i].Samples[k].Time = p.lastMs + 1
			}
		}
		p.last[labelKey(ts[i].Labels)] = ts[i].Labels
	}
	for i := range ts {
		for _, s := range ts[i].Samples {
			p.lastMs = max(p.lastMs, s.Time)
		}
	}
	p.enqueue(snappy.Encode(nil, appendWriteRequest(nil, ts)))
	p.mu.Unlock()
}

func (p *Pusher) enqueue(req []byte) {
	if len(p.queue) >= maxQueue {
		p.queue = p.queue[1:]
		p.dropped++
	}
	p.queue = append(p.queue, req)
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func labelKey(ls []Label) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.Name)
		b.WriteByte(0)
		b.WriteString(l.Value)
		b.WriteByte(0)
	}
	return b.String()
}

func (p *Pusher) run() {
	background.Thread()
	defer close(p.done)
	backoff := minBackoff
	for {
		p.mu.Lock()
		var req []byte
		if len(p.queue) > 0 {
			req = p.queue[0]
		}
		p.mu.Unlock()
		if req == nil {
			select {
			case <-p.wake:
				continue
			case <-p.closing:
				return
			}
		}
		err := p.send(req)
		p.mu.Lock()
		p.lastErr = err
		var retry *retryable
		if err == nil || !errors.As(err, &retry) {
			// Sent, or refused for good (a 4xx other than 429): either way
			// it goes, and the next is tried.
			if len(p.queue) > 0 && &p.queue[0][0] == &req[0] {
				p.queue = p.queue[1:]
			}
			backoff = minBackoff
			p.mu.Unlock()
			continue
		}
		p.mu.Unlock()
		select {
		case <-time.After(backoff):
		case <-p.closing: // keep trying until Close's deadline
			time.Sleep(backoff)
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

type retryable struct{ err error }

func (r *retryable) Error() string { return r.err.Error() }

func (p *Pusher) send(req []byte) error {
	hr, err := http.NewRequestWithContext(context.Background(), http.MethodPost, p.url, bytes.NewReader(req))
	if err != nil {
		return err
	}
	for k, vs := range p.headers {
		hr.Header[k] = vs
	}
	hr.Header.Set("Content-Encoding", "snappy")
	hr.Header.Set("Content-Type", "application/x-protobuf")
	hr.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	hr.Header.Set("User-Agent", "tressi")
	resp, err := p.client.Do(hr)
	if err != nil {
		return &retryable{err}
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode/100 == 5:
		return &retryable{fmt.Errorf("%s answered %s: %s", p.url, resp.Status, strings.TrimSpace(string(body)))}
	}
	return fmt.Errorf("%s refused a push with %s: %s", p.url, resp.Status, strings.TrimSpace(string(body)))
}

// Close queues a stale marker for every series pushed, then waits until
// everything queued went out or the deadline came. It says what was lost.
func (p *Pusher) Close(deadline time.Duration) error {
	p.mu.Lock()
	var stale []TimeSeries
	for _, ls := range p.last {
		stale = append(stale, TimeSeries{Labels: ls, Samples: []Sample{{staleNaN, p.lastMs + 1}}})
	}
	if len(stale) > 0 {
		p.enqueue(snappy.Encode(nil, appendWriteRequest(nil, stale)))
	}
	p.mu.Unlock()
	timeout := time.After(deadline)
	for {
		p.mu.Lock()
		left, dropped, lastErr := len(p.queue), p.dropped, p.lastErr
		p.mu.Unlock()
		if left == 0 {
			close(p.closing)
			<-p.done
			if dropped > 0 {
				return fmt.Errorf("remote write: the receiver was slow and %d pushes were dropped (the counters in later ones are whole)", dropped)
			}
			return nil
		}
		select {
		case <-timeout:
			p.mu.Lock()
			p.queue = nil // let run end after the attempt under way
			p.mu.Unlock()
			close(p.closing)
			return fmt.Errorf("remote write: %d pushes not delivered within %v: %v", left, deadline, lastErr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
