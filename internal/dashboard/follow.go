package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tressi/tressi/internal/live"
)

// EventsURL is the event stream of the dashboard at addr: HOST:PORT or
// the page's URL.
func EventsURL(addr string) string {
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	return strings.TrimSuffix(addr, "/") + "/events"
}

// retryEvery is how often Follow tries again a dashboard not up yet (a
// shard still starting) or whose stream broke.
const retryEvery = 500 * time.Millisecond

// errEnded stops reading once the run's last update came.
var errEnded = errors.New("the run ended")

// Follow reads the live stream of the dashboard at addr and calls fn with
// each update until one says the run ended (nil) or ctx ends (its error).
// It connects again whenever the dashboard is not up or the stream breaks:
// each connection starts with the whole view, so nothing is missed.
func Follow(ctx context.Context, addr string, fn func(live.Update)) error {
	url := EventsURL(addr)
	for {
		err := followOnce(ctx, url, fn)
		if errors.Is(err, errEnded) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last: %v)", url, ctx.Err(), err)
		case <-time.After(retryEvery):
		}
	}
}

func followOnce(ctx context.Context, url string, fn func(live.Update)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return fmt.Errorf("%s answered %s, %q: not a tressi dashboard", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	return ReadEvents(resp.Body, func(ev Event) error {
		if ev.Type != "update" {
			return nil
		}
		var u live.Update
		if err := json.Unmarshal(ev.Data, &u); err != nil {
			return fmt.Errorf("%s sent an update that is not JSON: %w", url, err)
		}
		fn(u)
		if u.Run.State == live.StateEnded {
			return errEnded
		}
		return nil
	})
}
