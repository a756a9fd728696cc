package uring

import (
	"bytes"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// newPair is a connected pair of stream sockets, closed with the test.
func newPair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

// newRing sets up a ring on the test's thread, the only one that may
// submit to it (SINGLE_ISSUER): the test stays on that thread.
func newRing(t *testing.T) *Ring {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	r, err := New(16, 64)
	if err != nil {
		t.Skipf("no io_uring here: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

// reap enters until want completions came (or 50 waits passed), and
// returns them.
func reap(t *testing.T, r *Ring, want int) []CQE {
	t.Helper()
	var got []CQE
	for range 50 {
		if len(got) >= want {
			break
		}
		if err := r.Enter(1, 100e6); err != nil {
			t.Fatal(err)
		}
		head, tail := r.Completions()
		for ; head != tail; head++ {
			got = append(got, *r.At(head))
		}
		r.Reaped(tail)
	}
	return got
}

// A send goes out whole and completes with its size; the multishot
// receive on the other end brings the bytes in provided buffers, names
// the buffer, and goes on (More) after each.
func TestSendAndMultishotReceive(t *testing.T) {
	r := newRing(t)
	a, b := newPair(t)
	bufs, err := NewBufRing(r, 1, 8, 64)
	if err != nil {
		t.Skipf("no provided-buffer rings here: %v", err)
	}
	defer bufs.Close()
	if err := r.RecvMultishot(b, 1, 7); err != nil {
		t.Fatal(err)
	}
	for i, msg := range []string{"GET / HTTP/1.1\r\n\r\n", "second"} {
		if err := r.Send(a, []byte(msg), 1<<40|uint64(i)); err != nil {
			t.Fatal(err)
		}
		var sent, recv *CQE
		for _, c := range reap(t, r, 2) {
			switch c.UserData {
			case 1<<40 | uint64(i):
				sent = &c
			case 7:
				recv = &c
			default:
				t.Fatalf("a completion nobody submitted: %+v", c)
			}
		}
		if sent == nil || sent.Res != int32(len(msg)) {
			t.Fatalf("send %d: completion %+v, want res %d", i, sent, len(msg))
		}
		if recv == nil || !recv.More() {
			t.Fatalf("receive %d: completion %+v, want bytes and More", i, recv)
		}
		bid, ok := recv.Buffer()
		if !ok {
			t.Fatalf("receive %d names no buffer: %+v", i, recv)
		}
		if got := bufs.Bytes(bid, int(recv.Res)); string(got) != msg {
			t.Fatalf("receive %d: %q, want %q", i, got, msg)
		}
		bufs.Give(bid)
		bufs.Publish()
	}
	// The peer's close ends the receive: res 0, no More.
	unix.Close(a)
	got := reap(t, r, 1)
	if len(got) != 1 || got[0].Res != 0 || got[0].More() {
		t.Fatalf("after the close: %+v, want one completion of 0 bytes without More", got)
	}
}

// With every provided buffer taken the kernel ends the receive (ENOBUFS,
// or the last buffer's completion without More); given back and armed
// again, the receive brings the rest, in order.
func TestReceiveOutlivesItsBuffers(t *testing.T) {
	r := newRing(t)
	a, b := newPair(t)
	bufs, err := NewBufRing(r, 2, 2, 8)
	if err != nil {
		t.Skipf("no provided-buffer rings here: %v", err)
	}
	defer bufs.Close()
	want := bytes.Repeat([]byte("0123456789"), 5)
	if _, err := unix.Write(a, want); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for round := 0; len(got) < len(want) && round < 40; round++ {
		if err := r.RecvMultishot(b, 2, 9); err != nil {
			t.Fatal(err)
		}
		for ended := false; !ended && len(got) < len(want); {
			cs := reap(t, r, 1)
			if len(cs) == 0 {
				t.Fatalf("the receive neither brought bytes nor ended (%d of %d bytes so far)", len(got), len(want))
			}
			for _, c := range cs {
				if c.Res > 0 {
					bid, _ := c.Buffer()
					got = append(got, bufs.Bytes(bid, int(c.Res))...)
					bufs.Give(bid)
				} else if c.Res != -int32(unix.ENOBUFS) {
					t.Fatalf("receive: %+v", c)
				}
				ended = ended || !c.More()
			}
		}
		bufs.Publish()
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A wait with a timeout and nothing to complete comes back empty; a
// cancelled receive completes with ECANCELED.
func TestTimeoutAndCancel(t *testing.T) {
	r := newRing(t)
	if !r.ExtArg() {
		t.Skip("this kernel's waits take no timeout")
	}
	_, b := newPair(t)
	bufs, err := NewBufRing(r, 3, 2, 16)
	if err != nil {
		t.Skipf("no provided-buffer rings here: %v", err)
	}
	defer bufs.Close()
	if err := r.RecvMultishot(b, 3, 11); err != nil {
		t.Fatal(err)
	}
	if err := r.Enter(1, 1e6); err != nil {
		t.Fatal(err)
	}
	if head, tail := r.Completions(); head != tail {
		t.Fatalf("a receive with nothing sent completed: %+v", *r.At(head))
	}
	if err := r.Cancel(11, 12); err != nil {
		t.Fatal(err)
	}
	got := reap(t, r, 1)
	if len(got) != 1 || got[0].UserData != 11 || got[0].Res != -int32(unix.ECANCELED) {
		t.Fatalf("after the cancel: %+v, want the receive's ECANCELED (and no completion of the cancel itself)", got)
	}
}
