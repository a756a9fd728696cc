package main

import (
	"fmt"
	"time"

	"github.com/tressi/tressi/internal/uring"
	"golang.org/x/sys/unix"
)

// The io_uring floor: the closed model's loop with its system calls
// replaced by one io_uring_enter per wake-up, which submits every send
// queued since the last one and waits for the next completion. Each
// connection has one multishot receive for the whole run, filling buffers
// the loop provides in a ring (a completion per arrival, each naming its
// buffer, handed back once read); a send's completion is skipped on
// success (IOSQE_CQE_SKIP_SUCCESS). So a request costs one submission and
// one completion, and the waits are shared by whatever completes together.
// The ring is set up for one thread (SINGLE_ISSUER, DEFER_TASKRUN:
// completions are run in the wait that reaps them, not by interrupting the
// loop). What this floor costs beside the epoll one says what an io_uring
// backend could win. The ring is package uring's, the loop's poller's too.

const (
	bufGroup = 1
	bufSize  = 512
	sendTag  = 1 << 63
)

// closedUring runs every connection back to back for d through the ring.
func (l *loop) closedUring(d time.Duration) error {
	entries := uint32(16)
	for entries < uint32(2*len(l.conns)) && entries < 4096 {
		entries *= 2
	}
	r, err := uring.New(entries, 2*entries)
	if err != nil {
		return err
	}
	defer r.Close()
	nbuf := 16
	for nbuf < 2*len(l.conns) && nbuf < 1<<15 {
		nbuf *= 2
	}
	bufs, err := uring.NewBufRing(r, bufGroup, nbuf, bufSize)
	if err != nil {
		return err
	}
	defer bufs.Close()
	send := func(i int) error {
		c := &l.conns[i]
		if err := r.SendSkipSuccess(c.fd, l.request, uint64(i)|sendTag); err != nil {
			return err
		}
		c.busy, c.got = true, 0
		l.busy++
		return nil
	}
	// receive arms connection i's multishot receive: it lasts until the
	// kernel ends it (a completion without IORING_CQE_F_MORE).
	receive := func(i int) error {
		return r.RecvMultishot(l.conns[i].fd, bufGroup, uint64(i))
	}
	for i := range l.conns {
		if err := unix.SetNonblock(l.conns[i].fd, false); err != nil {
			return err
		}
		if err := receive(i); err != nil {
			return err
		}
		if err := send(i); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(d)
	for {
		if err := r.Enter(1, 0); err != nil {
			return err
		}
		over := time.Now().After(deadline)
		head, tail := r.Completions()
		for ; head != tail; head++ {
			ev := r.At(head)
			if ev.UserData&sendTag != 0 {
				return fmt.Errorf("send: %v", unix.Errno(-ev.Res)) // only a failed send completes
			}
			i := int(ev.UserData)
			c := &l.conns[i]
			nobufs := ev.Res == -int32(unix.ENOBUFS)
			if !ev.More() && (ev.Res > 0 || nobufs) {
				// The kernel ended the receive (every buffer taken, say):
				// armed again, it runs once the buffers read below are back.
				if err := receive(i); err != nil {
					return err
				}
			}
			if nobufs {
				continue
			}
			if ev.Res <= 0 {
				return fmt.Errorf("the target closed a connection (recv: %d): give it keep-alive without a request limit", ev.Res)
			}
			bid, _ := ev.Buffer()
			bufs.Give(bid) // the bytes are counted, not read
			c.got += int(ev.Res)
			if c.got < l.respLen {
				continue
			}
			if c.got > l.respLen {
				return fmt.Errorf("%d bytes where a response is %d: responses are not all one size", c.got, l.respLen)
			}
			l.done++
			c.busy, c.got = false, 0
			l.busy--
			if !over {
				if err := send(i); err != nil {
					return err
				}
			}
		}
		r.Reaped(head)
		bufs.Publish()
		if over && l.busy == 0 {
			return nil
		}
	}
}
