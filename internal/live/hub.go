package live

import "sync"

// hub keeps a View and hands its updates to subscribers that never hold
// the publisher up: one that falls behind is dropped (and reconnects).
// A Feed publishes through one, and so does tressi watch's Merge.
type hub struct {
	view *View

	mu    sync.Mutex
	subs  map[chan Update]struct{}
	ended bool
	done  chan struct{} // closed when the last update went out
}

func newHub(run RunInfo) *hub {
	return &hub{view: NewView(run), subs: map[chan Update]struct{}{}, done: make(chan struct{})}
}

// publish applies u to the view and sends it on; end: it is the last.
func (h *hub) publish(u Update, end bool) {
	h.mu.Lock() // held throughout: a Subscribe sees the view before or after u, whole
	defer h.mu.Unlock()
	if h.ended {
		return
	}
	if u.Reset {
		u.Gauges = append(h.view.Full().Gauges, u.Gauges...)
	}
	u = h.view.Apply(u)
	for ch := range h.subs {
		select {
		case ch <- u:
		default: // too slow: it reconnects and starts from the view
			delete(h.subs, ch)
			close(ch)
		}
	}
	if end {
		h.ended = true
		for ch := range h.subs {
			close(ch)
		}
		clear(h.subs)
		close(h.done)
	}
}

// Subscribe returns the view so far and a channel of the updates after
// it, closed when the run ended (or the subscriber fell behind); cancel
// lets it go. After the end the channel comes closed.
func (h *hub) Subscribe() (first Update, updates <-chan Update, cancel func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	first = h.view.Full()
	ch := make(chan Update, 16)
	if h.ended {
		close(ch)
		return first, ch, func() {}
	}
	h.subs[ch] = struct{}{}
	return first, ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// View is the state so far.
func (h *hub) View() *View { return h.view }

// Done is closed once the run ended and its last update went out.
func (h *hub) Done() <-chan struct{} { return h.done }
