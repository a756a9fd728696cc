package loop

import (
	"bytes"
	"strconv"

	"github.com/tressi/tressi/h1"
	"github.com/tressi/tressi/internal/digest"
)

// The loop's side of digest_auth (digest.go).

// authRound is what a job's first exchange left when the server
// challenged it: the job goes out again with its answer, and its one row
// counts from the first send, with the bytes of both.
type authRound struct {
	tried                  bool
	sent, out, in, connect int64
}

// totals are the row's figures of j's exchange that ended with these.
func (j *ljob) totals(sent, out, in, connect int64) (int64, int64, int64, int64) {
	if a := &j.auth; a.tried {
		if a.sent >= 0 {
			sent = a.sent
		}
		out, in, connect = out+a.out, in+a.in, max(connect, a.connect)
	}
	if r := j.redir; r != nil && r.hops > 0 {
		// The earlier hops of its redirects (redirect_linux.go).
		sent, out, in, connect = r.sent, out+r.out, in+r.in, max(connect, r.connect)
	}
	return sent, out, in, connect
}

// answerer is where j's digest answers come from: its session's, for an
// endpoint the loop's for its target; nil before a challenge was met.
func (l *evloop) answerer(j *ljob) **digest.Answerer {
	if j.pr.Spec.Digest == nil || j.ws || j.crossed() {
		return nil
	}
	if j.st != nil {
		return &l.sessions[j.sess].digest
	}
	if l.digests == nil {
		l.digests = make([]*digest.Answerer, len(l.targets))
	}
	return &l.digests[j.pr.Spec.Target]
}

// withDigest is wire, j's request, with the Authorization its answerer
// gives (copied into *buf), or wire when there is none yet.
func (l *evloop) withDigest(j *ljob, wire []byte, buf *[]byte) []byte {
	a := l.answerer(j)
	if a == nil || *a == nil {
		return wire
	}
	lineEnd := bytes.Index(wire, crlf)
	headEnd := bytes.Index(wire, headEndMark)
	if lineEnd < 0 || headEnd < lineEnd {
		return wire
	}
	line := wire[:lineEnd]
	sp1 := bytes.IndexByte(line, ' ')
	sp2 := bytes.LastIndexByte(line, ' ')
	if sp1 < 0 || sp2 <= sp1 {
		return wire
	}
	b := append((*buf)[:0], wire[:headEnd]...)
	b = append(b, "\r\nAuthorization: "...)
	b = (*a).Append(b, line[:sp1], line[sp1+1:sp2])
	b = append(b, wire[headEnd:]...)
	*buf = b
	return b
}

var (
	crlf        = []byte("\r\n")
	headEndMark = []byte("\r\n\r\n")
)

// answerChallenge takes a 401 to j on c that carries a Digest challenge:
// the job goes out again with the answer, on c when it may carry another
// exchange, else on a fresh connection, and true is returned (no row yet).
// A job answers once: a second 401 is its row.
func (l *evloop) answerChallenge(c *lconn, j *ljob, resp *lresponse, keepConn bool) bool {
	a := l.answerer(j)
	if a == nil || resp.status != 401 || j.auth.tried || l.ex.Aborted.Load() {
		return false
	}
	ch, ok := digestChallenge(resp.Head)
	if !ok {
		return false
	}
	cred := j.pr.Spec.Digest
	l.cnonce++
	*a = digest.NewAnswerer(ch, cred.Username, cred.Password, strconv.FormatUint(l.cnonce, 36)+"."+strconv.FormatUint(j.k, 36))
	j.auth = authRound{tried: true, sent: c.sent, out: c.out, in: c.in, connect: c.connect}
	c.connect = 0
	c.served = true
	if !keepConn {
		l.busy--
		l.closeConn(c)
		l.dial(c.t, *j)
		return true
	}
	c.job = *j
	c.reused = true
	l.prepare(c)
	l.write(c)
	return true
}

// digestChallenge is the first Digest challenge the WWW-Authenticate
// lines of head hold.
func digestChallenge(head []byte) (digest.Challenge, bool) {
	for v := range h1.FieldValues(head, "www-authenticate") {
		if ch, err := digest.ParseChallenge(string(v)); err == nil {
			return ch, true
		}
	}
	return digest.Challenge{}, false
}
