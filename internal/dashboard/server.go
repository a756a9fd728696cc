// Package dashboard serves a run's live view: one self-contained page at
// /, kept current by server-sent events at /events, and the same view as
// JSON at /state. tressi watch reads the events of several shards back
// (ReadEvents) and serves their merge the same way.
package dashboard

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tressi/tressi/internal/background"
	"github.com/tressi/tressi/internal/live"
)

// The page is page.html with the charts' markup and script inlined: one
// file, nothing fetched from the network. The HTML report draws the same
// charts from the same two files (Charts).
var (
	//go:embed page.html
	pageTemplate string
	//go:embed charts.html
	chartsHTML string
	//go:embed charts.js
	chartsJS string

	page = []byte(strings.NewReplacer("{{CHARTS}}", chartsHTML, "{{SCRIPT}}", chartsJS).Replace(pageTemplate))
)

// Charts are the live view's charts as the page draws them: the markup
// (its own style included) and the script, which defines
// tressiLive.apply(update) to draw a live.Update into that markup.
func Charts() (markup, script string) { return chartsHTML, chartsJS }

// Source is what a dashboard shows: a live.Feed, or tressi watch's merge.
type Source interface {
	// Subscribe returns the view so far and the updates after it, a
	// channel closed when the run ended or the subscriber fell behind.
	Subscribe() (first live.Update, updates <-chan live.Update, cancel func())
}

// Server serves one Source.
type Server struct {
	src  Source
	http *http.Server
	ln   net.Listener
}

// Serve serves src on ln until Close.
func Serve(ln net.Listener, src Source) *Server {
	s := &Server{src: src, ln: ln}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /state", s.state)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.http.Serve(ln) //nolint:errcheck // ends with Close
	return s
}

// Close stops serving; open event streams end.
func (s *Server) Close() error { return s.http.Close() }

func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(page)
}

func (s *Server) state(w http.ResponseWriter, _ *http.Request) {
	first, _, cancel := s.src.Subscribe()
	cancel()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(first)
}

// events streams the view: first everything so far (whatever
// Last-Event-ID a reconnecting browser sends, the whole view is what it
// missed, at most a few MB), then each update, each with its sequence
// number as id. When the run ended the stream ends; the last event says
// state "ended", and the page stops reconnecting then.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	// A stream encodes and writes every update for as long as the run
	// lasts: on a thread of its own at the lowest priority, and that
	// thread ends with the connection's goroutine.
	background.Thread()
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	first, updates, cancel := s.src.Subscribe()
	defer cancel()
	if err := writeEvent(w, first); err != nil {
		return
	}
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case u, open := <-updates:
			if !open {
				return
			}
			if err := writeEvent(w, u); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

func writeEvent(w http.ResponseWriter, u live.Update) error {
	b, err := json.Marshal(u)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "id: %s\nevent: update\ndata: %s\n\n", strconv.FormatUint(u.Seq, 10), b)
	return err
}
