package loop

import (
	"io"
	"os"

	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/results"
	"golang.org/x/sys/unix"
)

// wss:// sessions: the loop drives the same transport seam for them as
// for https connections (transport.go), with crypto/tls from package tlsloop
// between the socket and the frames. The connection opens in three steps,
// each with its own state: the TCP connect (wsDialing), the TLS handshake
// (wsHandshaking), then the HTTP upgrade (wsUpgrading). The connect
// timeout covers the first two, counted from the dial, as for https.

// wokenID looks again at session id, whose transport moved on outside the
// loop (a handshake that has bytes to send, or ended).
func (l *wsLoop) wokenID(id int32) {
	if int(id) < len(l.sess) {
		if s := l.sess[id]; s.tr != nil && s.state != wsDone {
			l.pump(s)
		}
	}
}

// pump moves what a session's transport has: its bytes for the socket,
// the end of its handshake (then the upgrade goes out), plaintext it holds.
// Not while it connects, for the reason the HTTP loop's pump gives.
func (l *wsLoop) pump(s *wsSession) {
	if s.state == wsDialing {
		return
	}
	if !l.flushTransport(s) {
		return
	}
	switch s.state {
	case wsHandshaking:
		if err := s.tr.Err(); err != nil {
			l.connectError(s, &run.DialError{Err: run.AsTLSError(err)})
			return
		}
		if s.tr.Ready() {
			l.handshaking--
			l.now = l.ex.Clock.Now()
			s.connect = max(l.now-s.dialAt, 1)
			if s.ended {
				l.endedWithHandshake(s)
				return
			}
			l.upgrade(s)
		}
	case wsUpgrading, wsOpen, wsClosing:
		l.arrived(-1)
		l.plaintext(s)
	}
}

// endedWithHandshake ends s, whose socket ended before its handshake's
// goroutine saw the handshake succeed (a TLS 1.3 server refusing the
// client's certificate, one that closes at once): no event comes for the
// socket any more, so the upgrade never goes out. The connect's row says
// what the server sent last, if anything.
func (l *wsLoop) endedWithHandshake(s *wsSession) {
	if _, err := s.tr.Read(l.rbuf); err != nil && err != io.EOF {
		l.connLostErr(s, err)
		return
	}
	l.connLost(s, results.WSClosed, errServerEOF)
}

// flushTransport writes what the transport has for the socket; false once
// the session ended.
func (l *wsLoop) flushTransport(s *wsSession) bool {
	if s.state == wsDone {
		return false
	}
	blocked, errno := sendPending(s.fd, s.tr)
	if errno != 0 {
		l.connLost(s, results.Reset, os.NewSyscallError("write", errno))
		return false
	}
	l.setOut(s, blocked)
	return true
}

// readTLS drains a wss:// session's socket into its transport, and what
// it decrypts into the session.
func (l *wsLoop) readTLS(s *wsSession) {
	if l.cipher == nil {
		l.cipher = make([]byte, maxReadBuf)
	}
	for s.state != wsDone {
		n, at, errno := l.rxs.Read(s.fd, l.cipher)
		switch {
		case errno == unix.EAGAIN:
			return
		case errno == unix.EINTR:
			continue
		case errno == 0 && n == 0 && s.state == wsHandshaking:
			// The handshake fails once it read what came before the end
			// (a server's alert, most likely) and wakes the loop to say
			// why; until then the socket's end must not wake it again.
			s.tr.EOF()
			s.ended = true
			if err := l.p.Remove(s.fd); err != nil {
				l.connectError(s, &run.DialError{Err: err})
			}
			return
		case errno != 0 || n == 0:
			l.arrived(-1)
			if n == 0 && errno == 0 && !l.plaintext(s) {
				return
			}
			l.connLost(s, lostKind(errno), lostWhy(errno))
			return
		}
		l.arrived(at)
		if err := s.tr.Feed(l.cipher[:n]); err != nil {
			l.connLostErr(s, err)
			return
		}
		if s.state != wsHandshaking && !l.plaintext(s) {
			return
		}
		if n < len(l.cipher) {
			return
		}
	}
}

// plaintext hands what the transport decrypted to the session; false once
// the session ended.
func (l *wsLoop) plaintext(s *wsSession) bool {
	for s.state != wsDone {
		n, err := s.tr.Read(l.rbuf)
		if n > 0 {
			if !l.received(s, l.rbuf[:n]) {
				return false
			}
		}
		switch {
		case err == io.EOF:
			// The server's close_notify: nothing more comes.
			l.connLost(s, results.WSClosed, errServerEOF)
			return false
		case err != nil:
			l.connLostErr(s, err)
			return false
		case n == 0:
			// Post-handshake messages (a KeyUpdate) may want an answer.
			return l.flushTransport(s)
		}
	}
	return false
}

// dropTransport releases a session's transport (a handshake still running
// ends without waking the loop).
func (l *wsLoop) dropTransport(s *wsSession) {
	if s.tr != nil {
		s.tr.Close()
		s.tr = nil
	}
}

// connectError ends a session whose connection did not open because of
// err: its connect row has err's kind, and the first of a kind is sampled
// with err's text (for a tls error, why: unknown authority, name mismatch,
// expired).
func (l *wsLoop) connectError(s *wsSession, err error) {
	st := s.prog.ConnectStep()
	kind := run.Classify(err)
	if l.ex.Aborted.Load() {
		kind = results.Interrupted
	}
	row := run.WSRow(s.k, st.Ep, s.connSched, -1, -1, 0, kind, 0, 0)
	if kind != results.Interrupted && l.sink.WantSample(&row) {
		l.sink.PutSampleErr(&row, st.Req, nil, nil, 0, err)
	}
	l.connectFailed(s, st, kind)
}

// connLostErr ends a session whose transport failed with err: during the
// upgrade (a TLS 1.3 server refusing the client's certificate says so on
// the first read) it is the connect's error; later, the session's.
func (l *wsLoop) connLostErr(s *wsSession, err error) {
	if s.state == wsDialing || s.state == wsHandshaking || s.state == wsUpgrading {
		l.connectError(s, run.AsTLSError(err))
		return
	}
	l.connLost(s, run.Classify(err), err)
}
