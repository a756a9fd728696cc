package loop

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/ws"
	"golang.org/x/sys/unix"
)

// A WebSocket session's connection: dialing, the upgrade, reading and
// writing frames, and the rows they answer.

// startSession dials slot k's session.
func (l *wsLoop) startSession(k uint64, p *run.Program, due int64, user int32) {
	s := l.newSession()
	s.k, s.prog, s.t, s.start = k, p, l.targets[p.Target], due
	s.user, s.deadline = user, l.userDeadline(user)
	s.cap.Reset(p.Captures)
	s.connSched, s.ready = due, due
	s.connOut, s.lost = 0, nil
	l.stats.sessionsStarted++
	l.active++
	s.t.wsLive++
	if p.Connect > 0 {
		// HTTP steps first (a login): they run as an HTTP session of the
		// host's, on its pool (loopsession_linux.go), which hands the
		// session back at the connect (afterHTTP).
		s.state = wsHTTP
		l.host.runSteps(k, p, user, due, s.deadline, s.id, p.Connect)
		return
	}
	l.dialWS(s)
}

// takeBack takes over what h, the host's session that ran the HTTP steps
// of its WebSocket session, leaves: its cursor, its captures (their
// buffers swapped, so neither allocates), when the connect became ready
// (its last answer plus think), whether a step failed and whether a stop
// cut it.
func (l *wsLoop) takeBack(h *lsession) *wsSession {
	s := l.sess[h.ws]
	s.i, s.j, s.ready = h.step, h.rep, h.ready
	s.cap, h.cap = h.cap, s.cap
	s.failed = s.failed || h.failed
	s.cut = h.cut
	return s
}

// afterHTTP goes on with a session whose HTTP steps are done: its
// WebSocket connection, scheduled from when the connect became ready; or,
// cut by a stop, every row left recorded as not sent. A connect whose
// headers or path need a value no step captured is capture_failed, and the
// session's other rows ws_closed.
func (l *wsLoop) afterHTTP(s *wsSession, cut bool) {
	l.now = l.ex.Clock.Now()
	if cut || l.stopSending(s) {
		l.restRows(s, results.NotSent)
		l.endSession(s)
		return
	}
	s.state, s.wakeAt = wsDialing, -1
	s.connSched = s.ready
	if st := s.prog.ConnectStep(); !s.cap.HasAll(st.Needs) {
		l.connectFailed(s, st, results.CaptureFailed)
		return
	}
	l.dialWS(s)
}

// dialWS opens the session's WebSocket connection; the upgrade follows.
func (l *wsLoop) dialWS(s *wsSession) {
	switch err := l.dial(s, s.t); {
	case err == errNoRoom:
		l.connectFailed(s, s.prog.ConnectStep(), results.LocalResources)
	case err != nil:
		l.connectError(s, err)
	}
}

// errNoRoom: the epoll set took no more sockets.
var errNoRoom = errors.New("the epoll set is full")

// dial opens a non-blocking connection to t for the session: its socket
// (bound to t's next source address), its transport for TLS, its place in
// the epoll set and its connect timer. An error leaves nothing open.
func (l *wsLoop) dial(s *wsSession, t *ltarget) error {
	fd, err := t.socket(l.rxs.On)
	s.connSent = l.ex.Clock.Now()
	s.dialAt = s.connSent
	s.state = wsDialing
	if err != nil {
		return &run.DialError{Err: err}
	}
	s.fd = fd
	if t.upgrade != nil {
		id := s.id
		if s.tr, err = t.upgrade(func() { l.p.Wake(id | sys.WSBit) }); err != nil {
			sys.CloseFD(fd)
			s.fd = -1
			return &run.DialError{Err: err}
		}
	}
	if err := l.p.Add(fd, s.id|sys.WSBit, true); err != nil {
		l.dropTransport(s)
		sys.CloseFD(fd)
		s.fd = -1
		return errNoRoom
	}
	s.wantOut = true
	l.outs++
	l.open++
	s.dialEnd = s.connSent + t.connect
	l.setTimer(s, s.dialEnd)
	return nil
}

func (l *wsLoop) newSession() *wsSession {
	var s *wsSession
	if n := len(l.free); n > 0 {
		s = l.sess[l.free[n-1]]
		l.free = l.free[:n-1]
		id, r, captured, awaits := s.id, s.r, s.cap, s.awaits
		*s = wsSession{id: id, r: r, cap: captured, awaits: awaits[:0]}
		s.r.Reset()
		s.r.Release()
	} else {
		if len(l.block) == 0 {
			l.block = make([]wsSession, sessionBlock)
		}
		s = &l.block[0]
		l.block = l.block[1:]
		s.id = int32(len(l.sess))
		s.awaits = s.awaitBuf[:0]
		l.sess = append(l.sess, s)
	}
	s.fd, s.fe, s.timerAt, s.wakeAt = -1, -1, -1, -1
	return s
}

// sessionBlock is how many sessions are allocated at once: 64 of them make
// one large allocation (over 32 KiB), which starts on a page, so every
// session starts on a cache line (768 bytes each) next to the others.
const sessionBlock = 64

// A session is a whole number of cache lines, or the sessions after the
// first of a block would not start on one: this fails to compile if not.
var _ [0]struct{} = [unsafe.Sizeof(wsSession{}) % 64]struct{}{}

// touch reads a word of each cache line a frame of s uses, before a batch
// of sessions is handled: after a send period the session is cold, and
// loads issued together wait for memory together, where sessions handled
// one after another, each behind its system calls, would wait once per
// line each. One word per line of the per-frame fields, for a session
// that starts on a line (see sessionBlock).
func (s *wsSession) touch() uintptr {
	return uintptr(s.state) + uintptr(s.j) + uintptr(s.lastAnswer) + uintptr(len(s.cap.Values)) +
		uintptr(s.awaitBuf[0].deadline) + uintptr(s.awaitBuf[0].each) + s.r.Touch()
}

// event handles one socket's readiness.
func (l *wsLoop) event(s *wsSession, ev uint32) {
	switch s.state {
	case wsDialing:
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if err := sys.ConnectResult(s.fd); err != nil {
			l.connectError(s, &run.DialError{Err: err})
			return
		}
		l.now = l.ex.Clock.Now()
		if s.tr != nil && !s.tr.Ready() {
			s.state = wsHandshaking
			l.handshaking++
			l.pump(s)
			return
		}
		s.connect = max(l.now-s.dialAt, 1)
		l.upgrade(s)
		return
	case wsHandshaking:
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			l.read(s)
			if s.state != wsHandshaking {
				return
			}
		}
		l.pump(s)
		return
	}
	if ev&(unix.EPOLLOUT|unix.EPOLLERR) != 0 && s.wantOut {
		l.flushOut(s)
		if s.state == wsDone {
			return
		}
	}
	if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		l.read(s)
	}
}

// upgrade sends the HTTP upgrade request of the connect step.
func (l *wsLoop) upgrade(s *wsSession) {
	st := s.prog.ConnectStep()
	var nonce [16]byte
	for i := range nonce {
		nonce[i] = byte(l.rng.Uint64())
	}
	s.key = ws.NewKey(nonce)
	vals := l.values(s, nil, -1)
	l.frame = l.frame[:0]
	l.frame = append(l.frame, "GET "...)
	l.frame = st.Req.Spec.URI.Append(l.frame, vals)
	l.frame = append(l.frame, " HTTP/1.1\r\n"...)
	if !namesHost(st.Req.Spec.Headers) { // the plan's Host, a virtual host, goes out with the headers below
		l.frame = append(l.frame, "Host: "...)
		l.frame = append(l.frame, s.t.host...)
		l.frame = append(l.frame, "\r\n"...)
	}
	l.frame = append(l.frame, "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "...)
	l.frame = append(l.frame, s.key[:]...)
	l.frame = append(l.frame, "\r\n"...)
	if p := st.Spec.WebSocket.Subprotocols; len(p) > 0 {
		l.frame = append(l.frame, "Sec-WebSocket-Protocol: "...)
		for i, x := range p {
			if i > 0 {
				l.frame = append(l.frame, ", "...)
			}
			l.frame = append(l.frame, x...)
		}
		l.frame = append(l.frame, "\r\n"...)
	}
	for _, h := range st.Req.Spec.Headers {
		l.frame = append(l.frame, h.Name...)
		l.frame = append(l.frame, ": "...)
		l.frame = h.Value.Append(l.frame, vals)
		l.frame = append(l.frame, "\r\n"...)
	}
	l.frame = append(l.frame, "\r\n"...)
	s.state = wsUpgrading
	s.connSent, s.connOut = l.now, int64(len(l.frame))
	l.setOut(s, false)
	l.write(s, l.frame)
	l.setTimer(s, s.upgradeEnd())
}

// namesHost says whether a plan's headers set Host themselves.
func namesHost(headers []compile.HeaderSplice) bool {
	for i := range headers {
		if strings.EqualFold(headers[i].Name, "host") {
			return true
		}
	}
	return false
}

// upgradeEnd is when the upgrade's answer is late: the connect step's
// timeout, counted from the session's due instant.
func (s *wsSession) upgradeEnd() int64 { return s.connSched + int64(s.prog.ConnectStep().Req.Timeout) }

// values are what a send's holes are filled from.
func (l *wsLoop) values(s *wsSession, mark []byte, each int) *compile.Values {
	v := &l.vals
	v.Slot, v.Row, v.Captured, v.Mark = s.k, l.ex.S.Row(s.prog.Entry, s.k), s.cap.Values, mark
	v.Each, v.EachIndex = nil, 0
	if each >= 0 && each < len(s.items) {
		v.Each, v.EachIndex = s.items[each], each
	}
	return v
}

// write sends b now, keeping what the socket does not take; a wss://
// session's transport encrypts it first.
func (l *wsLoop) write(s *wsSession, b []byte) {
	if s.fd < 0 || s.state == wsDone {
		return
	}
	if s.tr != nil {
		if _, err := s.tr.Write(b); err != nil {
			l.connLostErr(s, err)
			return
		}
		l.flushTransport(s)
		return
	}
	if len(s.out) > 0 {
		s.out = append(s.out, b...)
		return
	}
	n, errno := sys.RawSend(s.fd, b)
	switch {
	case errno == unix.EAGAIN, errno == unix.EINTR:
		n = 0
	case errno != 0:
		l.connLost(s, results.Reset, os.NewSyscallError("write", errno))
		return
	}
	if n < len(b) {
		s.out = append(s.out[:0], b[n:]...)
		l.setOut(s, true)
	}
}

// flushOut writes what the socket did not take before.
func (l *wsLoop) flushOut(s *wsSession) {
	if s.tr != nil {
		l.flushTransport(s)
		return
	}
	n, errno := sys.RawSend(s.fd, s.out)
	switch {
	case errno == unix.EAGAIN, errno == unix.EINTR:
		return
	case errno != 0:
		l.connLost(s, results.Reset, os.NewSyscallError("write", errno))
		return
	}
	s.out = s.out[n:]
	if len(s.out) == 0 {
		s.out = nil
		l.setOut(s, false)
	}
}

// setOut switches EPOLLOUT interest on or off.
func (l *wsLoop) setOut(s *wsSession, out bool) {
	if out == s.wantOut || s.fd < 0 {
		return
	}
	s.wantOut = out
	if out {
		l.outs++
	} else {
		l.outs--
	}
	_ = l.p.Modify(s.fd, s.id|sys.WSBit, out)
}

// read drains the socket, handing what came to the session (through its
// transport for wss://).
func (l *wsLoop) read(s *wsSession) {
	if s.tr != nil {
		l.readTLS(s)
		return
	}
	for s.state != wsDone {
		n, at, errno := l.rxs.Read(s.fd, l.rbuf)
		switch {
		case errno == unix.EAGAIN:
			return
		case errno == unix.EINTR:
			continue
		case errno != 0 || n == 0:
			l.rx = l.now
			l.connLost(s, lostKind(errno), lostWhy(errno))
			return
		}
		l.arrived(at)
		if !l.received(s, l.rbuf[:n]) || n < len(l.rbuf) {
			return
		}
	}
}

// arrived sets rx, when the bytes about to be handled arrived: at, the
// kernel's stamp, or the clock without one. A stamp from before the loop
// last read the clock (the usual case: the loop slept through the
// replies) needs no new reading.
func (l *wsLoop) arrived(at int64) {
	if at >= 0 && at <= l.now {
		l.rx = at
		return
	}
	l.now = l.ex.Clock.Now()
	l.rx = l.now
	if at >= 0 && at < l.now {
		l.rx = at
	}
}

// lostKind is the error of a connection whose read ended with errno (0:
// the server closed it).
func lostKind(errno syscall.Errno) results.ErrorKind {
	if errno != 0 && errno != unix.ECONNRESET {
		return results.Reset
	}
	return results.WSClosed
}

// errServerEOF is a connection the server ended without a close frame.
var errServerEOF = errors.New("the server closed the connection without a close frame")

// lostWhy says why a connection whose read ended with errno is gone.
func lostWhy(errno syscall.Errno) error {
	if errno == 0 {
		return errServerEOF
	}
	return os.NewSyscallError("read", errno)
}

// serverCloseError is the server's close frame, as a sample's detail
// says it: `the server closed the connection: 1011 "internal error"`.
type serverCloseError struct {
	code   int
	reason string
}

func (e *serverCloseError) Error() string {
	if e.code == 0 {
		return "the server closed the connection (a close frame without a code)"
	}
	return fmt.Sprintf("the server closed the connection: %d %q", e.code, e.reason)
}

// received handles bytes the server sent: the upgrade's answer while it
// arrives, then frames. False once the session ended.
func (l *wsLoop) received(s *wsSession, b []byte) bool {
	if s.state == wsUpgrading {
		s.head = append(s.head, b...)
		used, resp, err := ws.CheckResponse(s.head, s.key, s.prog.ConnectStep().Spec.WebSocket.Subprotocols)
		if used == 0 && err == nil {
			return true
		}
		st := s.prog.ConnectStep()
		if err != nil {
			s.failed = true
			row := run.WSRow(s.k, st.Ep, s.connSched, s.connSent, max(l.rx, s.connSent), uint16(resp.Status), results.WSProtocol, s.connOut, int64(len(s.head)))
			row.Connect = s.connect
			if l.sink.WantSample(&row) {
				l.sink.PutSampleErr(&row, st.Req, nil, s.head[:min(len(s.head), l.ex.MaxSample)], int64(len(s.head)), err)
			}
			l.sink.Append(row)
			l.sink.Stats.Sent.Add(1)
			l.sink.Stats.Done.Add(1)
			l.sink.Stats.Failed.Add(1)
			s.i, s.j = s.prog.Connect, 1 // the connect's row is the one just written
			s.lost = fmt.Errorf("the upgrade was refused: %w", err)
			l.restRows(s, results.WSClosed)
			l.endSession(s)
			return false
		}
		rest := append([]byte(nil), s.head[used:]...)
		s.head = nil
		l.connected(s, st, int64(used))
		b = rest
	}
	return l.frames(s, b)
}

// connected records the connect row and starts the program.
func (l *wsLoop) connected(s *wsSession, st *run.Step, in int64) {
	s.state = wsOpen
	l.stats.connected++
	l.ex.Protos[s.prog.Target].Websocket.Add(1)
	done := max(l.rx, s.connSent)
	l.stats.connect.RecordValue(max(done-s.connSched, 1))
	row := run.WSRow(s.k, st.Ep, s.connSched, s.connSent, done, 101, results.None, s.connOut, in)
	row.Connect = s.connect
	l.keep(s, row, st)
	s.j = 1
	s.wakeAt = done + int64(l.ex.S.Pause(st.Spec, st.Id, s.k, 0))
	s.ready = s.wakeAt
	l.step(s)
}

func (l *wsLoop) keep(s *wsSession, row results.Row, st *run.Step) {
	l.keepFrame(s, row, st, nil)
}

// keepFrame records row; frame is the frame that answered it (nil: none).
// The first row of each (step, status, error) is sampled with that frame,
// so a report shows what the server said when it refused (Tinode's ctrl
// text: "permission denied", "must attach first").
func (l *wsLoop) keepFrame(s *wsSession, row results.Row, st *run.Step, frame []byte) {
	if row.Sent >= 0 { // the live line's "sent", as the HTTP rows count it
		l.sink.Stats.Sent.Add(1)
	}
	if row.Error.NotRequest() { // no request: out of the live figures
		l.sink.Keep(row, l.now)
		return
	}
	l.sink.Stats.Done.Add(1)
	if row.Error != results.None || (st.Req != nil && !results.ExpectsStatus(st.Req.Spec.Expect, int(row.Status))) {
		s.failed = true
		l.sink.Stats.Failed.Add(1)
	}
	if st.Req != nil && l.sink.WantSample(&row) {
		var why error
		if row.Error != results.None && frame == nil {
			why = s.lost
		}
		l.sink.PutSampleErr(&row, st.Req, nil, frame, int64(len(frame)), why)
	}
	l.sink.Keep(row, l.now)
}

// frames feeds b to the session's reader; false once the session ended.
func (l *wsLoop) frames(s *wsSession, b []byte) bool {
	for len(b) > 0 || s.r.Err() == nil {
		n, ready, err := s.r.Feed(b)
		b = b[n:]
		if err != nil {
			code := ws.CloseProtocolError
			if errors.Is(err, ws.ErrTooBig) {
				code = ws.CloseTooBig
			}
			l.sendClose(s, code)
			l.connLost(s, results.WSProtocol, err)
			return false
		}
		if !ready {
			return true
		}
		switch s.r.Op {
		case ws.OpPing:
			l.control(s, ws.OpPong, s.r.Payload())
		case ws.OpPong:
		case ws.OpClose:
			l.serverClosed(s)
			return false
		default:
			l.message(s, s.r.Payload())
			if s.state == wsDone {
				return false
			}
		}
	}
	return true
}

func (l *wsLoop) maskKey() [4]byte {
	v := l.rng.Uint64()
	return [4]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
}

func (l *wsLoop) control(s *wsSession, op ws.Opcode, p []byte) {
	var buf [ws.MaxHeader + ws.MaxControlPayload]byte
	l.write(s, ws.AppendFrame(buf[:0], op, true, p, true, l.maskKey()))
}

// sendClose sends a close frame with code and returns its size.
func (l *wsLoop) sendClose(s *wsSession, code int) int64 {
	var buf [ws.MaxHeader + ws.MaxControlPayload]byte
	frame := ws.AppendClose(buf[:0], code, "", true, l.maskKey())
	l.write(s, frame)
	return int64(len(frame))
}
