package exec

import "fmt"

// mixedEngine runs an open-model plan of WebSocket scenarios beside HTTP
// endpoints or HTTP scenarios: the sessions on WebSocket loops, the rest
// on HTTP loops, each loop reading the schedule and taking its own kind's
// slots (openDriver.webSocket). Every slot is still one loop's, so every
// row is written once; a target used by both kinds holds up to its
// connections on each.
type mixedEngine struct {
	http *loopEngine
	ws   *wsEngine
}

func (m *mixedEngine) name() string     { return EngineLoop }
func (m *mixedEngine) senders() int     { return m.http.senders() + m.ws.senders() }
func (m *mixedEngine) background() bool { return true }
func (m *mixedEngine) batchRows() int   { return closedBatchRows }

// start builds the HTTP loops (unless the warm-up did), then starts the
// WebSocket loops and the HTTP ones, so an error leaves nothing started.
func (m *mixedEngine) start() error {
	if err := m.http.build(); err != nil {
		return fmt.Errorf("starting the loop engine: %w", err)
	}
	if err := m.ws.start(); err != nil {
		for _, l := range m.http.built {
			l.discard()
		}
		return err
	}
	m.http.run()
	return nil
}

// finish writes websocket.json.
func (m *mixedEngine) finish(dir string) error { return m.ws.finish(dir) }
