// Package h2 is the client side of an HTTP/2 connection (RFC 9113) for an
// event loop: the loop moves bytes, a Conn frames them.
//
// A Conn never touches a socket. The loop passes every byte it reads to
// Feed, writes what Output returns and says how much went out with Wrote.
// Requests start streams with Start; answers come back through the
// Handler, synchronously, from inside Feed. That keeps one goroutine per
// loop and no locks, and lets one connection carry many requests at once.
//
// Frames are read and written with golang.org/x/net/http2's Framer and
// header blocks coded with its hpack package; what is ours is the state:
// SETTINGS and their acks, connection and stream flow control, PING,
// GOAWAY, RST_STREAM and MAX_CONCURRENT_STREAMS.
//
// Request header blocks are coded without the dynamic table (our encoder's
// table size is 0), so a request's block is a pure function of the request
// and costs no table bookkeeping. Response header fields are decoded only
// as far as the caller wants them: after :status the handler says whether
// it needs the rest (a capture, a sample); if not, the decoder skips their
// strings, so a steady stream of answers allocates nothing.
package h2

import (
	"errors"
	"fmt"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Preface is what a client sends first on every HTTP/2 connection.
const Preface = http2.ClientPreface

// Defaults, chosen for a load generator: a large receive window so the
// server is never throttled by us, and a cap on concurrent streams.
const (
	DefaultMaxStreams   = 100
	defaultStreamWindow = 4 << 20  // what we let the server send per stream
	defaultConnWindow   = 16 << 20 // and on the whole connection
	initialWindow       = 65535    // RFC 9113 §6.9.2, before SETTINGS say otherwise
	defaultMaxFrameSize = 16384    // RFC 9113 §6.5.2
	maxHeaderBlock      = 256 << 10
	headerTableSize     = 4096
)

// Config tunes a Conn.
type Config struct {
	// MaxStreams caps concurrent streams below what the server allows;
	// 0 means DefaultMaxStreams.
	MaxStreams uint32
}

// Handler receives a connection's answers, called from Feed (and from
// Start or Cancel where a stream ends at once).
type Handler interface {
	// Response gives a stream's final status (1xx are skipped); it returns
	// whether the stream's header fields (and trailers) go to Field.
	Response(s *Stream, status int) (wantFields bool)
	// Field is one response header or trailer field, valid during the call.
	Field(s *Stream, name, value string)
	// Data is a piece of the response body, valid during the call.
	Data(s *Stream, p []byte)
	// Closed ends a stream: nil when the response is complete, else an
	// error (*StreamError, or a connection error). The Stream is reused
	// afterwards.
	Closed(s *Stream, err error)
}

// Conn is the client side of one HTTP/2 connection. It is not safe for
// concurrent use: one event loop owns it.
type Conn struct {
	h   Handler
	cfg Config

	out    outBuffer
	fr     *http2.Framer
	in     frameReader
	hdec   *hpack.Decoder
	emitOn bool         // hdec's emit is enabled
	memo   blockMemo    // the last self-contained header block, decoded
	enc    blockEncoder // builds request header blocks

	pending []byte      // an incomplete frame, waiting for its rest
	block   headerBlock // the header block being read

	streams map[uint32]*Stream
	free    []*Stream
	nextID  uint32
	blocked []*Stream // streams with body bytes waiting for window
	waiting []*Stream // flushBlocked's scratch
	// answering counts streams whose response has begun but not ended.
	answering int

	peerMaxStreams uint32
	peerWindow     int32 // initial stream send window from SETTINGS
	peerFrameSize  uint32
	sendWindow     int64 // connection send window
	recvWindow     int64 // what the server may still send on the connection
	recvCredit     int64 // connection bytes consumed, not yet returned
	sawSettings    bool
	goAway         bool
	goAwayErr      error  // a GOAWAY with an error code
	goAwayLast     uint32 // the last stream id the GOAWAY said was processed
	limit          uint32 // streams this connection may ever start; 0: no limit
	err            error  // the connection failed; nothing more works
}

// headerBlock is what is known of the header block being decoded.
type headerBlock struct {
	s        *Stream // nil for a stream we already ended
	size     int
	end      bool // END_STREAM on its HEADERS frame
	trailers bool
	interim  bool // a 1xx response
	bad      bool // an invalid :status
}

type hpackField = hpack.HeaderField

// Stream is one request and its answer on a Conn.
type Stream struct {
	ID  uint32
	Tag int64 // the owner's, untouched by Conn
	// In and Out are the bytes of the stream's frames each way, frame
	// headers included.
	In, Out int64

	status     int
	wantFields bool
	gotHeaders bool // the final response's headers arrived
	ended      bool // END_STREAM seen from the server
	body       []byte
	// open: the request goes on after its headers (Open): Send queues its
	// bytes in queue (owned, kept for the next stream), HalfClose ends it.
	open       bool
	queue      []byte
	window     int64 // send window
	recvWindow int64 // what the server may still send on it
	recvCredit int64 // stream bytes consumed, not yet returned
}

// Status is the final response status, 0 before it arrived.
func (s *Stream) Status() int { return s.status }

// NewConn returns a connection whose Output starts with the client
// preface and our SETTINGS.
func NewConn(h Handler, cfg Config) *Conn {
	if cfg.MaxStreams == 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	c := &Conn{h: h, cfg: cfg, streams: map[uint32]*Stream{}, nextID: 1,
		peerMaxStreams: DefaultMaxStreams, peerWindow: initialWindow,
		peerFrameSize: defaultMaxFrameSize, sendWindow: initialWindow, recvWindow: defaultConnWindow}
	c.fr = http2.NewFramer(&c.out, &c.in)
	c.fr.SetReuseFrames()
	c.fr.SetMaxReadFrameSize(defaultMaxFrameSize)
	c.hdec = hpack.NewDecoder(headerTableSize, c.emit)
	c.hdec.SetMaxStringLength(maxHeaderBlock)
	c.emitOn = true
	c.enc.init()
	c.out.b = append(c.out.b, Preface...)
	c.writeErr(c.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		// No dynamic table for the server's header blocks: a field it
		// indexed would have to be decoded into a string (an allocation)
		// even when we skip it. Literals cost a few bytes more per response.
		http2.Setting{ID: http2.SettingHeaderTableSize, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: defaultStreamWindow},
		http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 0},
	))
	c.writeErr(c.fr.WriteWindowUpdate(0, defaultConnWindow-initialWindow))
	return c
}

// Output is what the connection has to send; the loop writes it and says
// how much went with Wrote.
func (c *Conn) Output() []byte { return c.out.b[c.out.off:] }

// Wrote drops the first n bytes of Output, which the socket took.
func (c *Conn) Wrote(n int) { c.out.consume(n) }

// Err is why the connection failed, or nil.
func (c *Conn) Err() error { return c.err }

// Active is how many streams are open.
func (c *Conn) Active() int { return len(c.streams) }

// GoingAway says the server sent GOAWAY: no new stream may start.
func (c *Conn) GoingAway() bool { return c.goAway }

// Partial says part of a response has arrived and the rest has not: a
// frame cut short, or a stream with its headers but not its end.
func (c *Conn) Partial() bool { return len(c.pending) > 0 || c.answering > 0 }

// Ready says a stream may start now: the connection is healthy, not going
// away, and below both sides' limits on concurrent streams.
func (c *Conn) Ready() bool {
	return c.err == nil && !c.goAway && c.nextID < 1<<31 && !c.atLimit() &&
		uint32(len(c.streams)) < min(c.peerMaxStreams, c.cfg.MaxStreams)
}

// Retired says no stream will ever start here again (the server is going
// away, the connection failed, its stream ids ran out or it reached its
// Limit): once Active is 0 the loop closes it and dials anew.
func (c *Conn) Retired() bool { return c.err != nil || c.goAway || c.nextID >= 1<<31 || c.atLimit() }

// Started is how many streams the connection has started.
func (c *Conn) Started() int { return int(c.nextID-1) / 2 }

// Limit caps the streams the connection will ever start at n (n > 0): a
// server that ends each connection after so many requests (nginx's
// keepalive_requests) sends GOAWAY after the last, and the streams
// started past it are never processed.
func (c *Conn) Limit(n int) { c.limit = uint32(n) }

func (c *Conn) atLimit() bool { return c.limit > 0 && c.Started() >= int(c.limit) }

// ProcessedBeforeGoAway is how many streams the server's GOAWAY without an
// error said it processed (the stream ids up to its last one), 0 when the
// server sent none or sent one with an error.
func (c *Conn) ProcessedBeforeGoAway() int {
	if !c.goAway || c.goAwayErr != nil {
		return 0
	}
	return int(c.goAwayLast+1) / 2
}

// Errors a stream or a connection ends with.
var (
	// ErrUnprocessed: the server said it did not process the stream
	// (REFUSED_STREAM, or a GOAWAY whose last stream is below it), so
	// the request may be sent again safely.
	ErrUnprocessed = errors.New("h2: stream not processed by the server")
	// ErrConnClosed: the connection closed before the stream ended.
	ErrConnClosed = errors.New("h2: connection closed")
	// ErrNotReady: Start was called when Ready was false.
	ErrNotReady = errors.New("h2: no stream can start on this connection now")
)

// StreamError is a stream the server reset.
type StreamError struct{ Code http2.ErrCode }

func (e *StreamError) Error() string { return "h2: stream reset by the server: " + e.Code.String() }

// ConnError is a connection that failed: a protocol error on either side,
// or a GOAWAY with an error code.
type ConnError struct {
	Code   http2.ErrCode
	Reason string
	Remote bool // the server said so in a GOAWAY
}

func (e *ConnError) Error() string {
	who := "protocol error"
	if e.Remote {
		who = "server sent GOAWAY"
	}
	if e.Reason != "" {
		return fmt.Sprintf("h2: %s: %s (%s)", who, e.Code, e.Reason)
	}
	return fmt.Sprintf("h2: %s: %s", who, e.Code)
}

// fail ends the connection: every open stream ends with err, a GOAWAY
// goes out where we found the fault, and nothing works afterwards.
func (c *Conn) fail(err error) error {
	if c.err != nil {
		return c.err
	}
	c.err = err
	var ce *ConnError
	if errors.As(err, &ce) && !ce.Remote {
		// We accept no server-initiated stream, so the last one is 0.
		c.writeErr(c.fr.WriteGoAway(0, ce.Code, nil))
	}
	c.closeStreams(func(*Stream) error { return err })
	return err
}

// Fail ends the connection and every open stream with err: the loop's
// own reasons (a timeout of the socket, an abort).
func (c *Conn) Fail(err error) {
	if c.err == nil {
		c.err = err
	}
	c.closeStreams(func(*Stream) error { return err })
}

// Close ends every open stream with ErrConnClosed (or why the connection
// failed): the loop calls it when the socket is gone.
func (c *Conn) Close() {
	if c.err == nil {
		c.err = ErrConnClosed
		if c.goAwayErr != nil {
			c.err = c.goAwayErr
		}
	}
	c.closeStreams(func(s *Stream) error { return c.err })
}

func (c *Conn) closeStreams(why func(*Stream) error) {
	for id, s := range c.streams {
		delete(c.streams, id)
		c.end(s, why(s))
	}
	c.blocked = c.blocked[:0]
}

// writeErr notes a failure to write a frame: writes go to memory and fail
// only on bad arguments, which are our bugs.
func (c *Conn) writeErr(err error) {
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("h2: writing a frame: %w", err)
	}
}
