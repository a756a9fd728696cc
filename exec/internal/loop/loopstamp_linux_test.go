package loop

import (
	"net"
	"testing"
	"time"

	"github.com/tressi/tressi/exec/internal/run"
	"golang.org/x/sys/unix"
)

// The open model reads responses late on purpose, at its next burst: the
// kernel's receive stamp must date them to their arrival, not the read.
func TestLoopStampsDateArrival(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
			time.Sleep(time.Second)
			c.Close()
		}
	}()
	sa, _ := sockaddr(ln.Addr().(*net.TCPAddr))
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPING,
		unix.SOF_TIMESTAMPING_RX_SOFTWARE|unix.SOF_TIMESTAMPING_SOFTWARE); err != nil {
		t.Skipf("no receive timestamps here: %v", err)
	}
	time.Sleep(20 * time.Millisecond) // the kernel turns stamping on lazily
	ex := &run.Executor{}
	ex.Clock.Base = time.Now()
	if err := unix.Connect(fd, sa); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the response arrives, unread
	l := &evloop{ex: ex}
	l.rx.On = true // the test's socket asked for stamps itself
	l.now = l.rx.Now(&ex.Clock)
	c := &lconn{fd: fd, sent: -1}
	buf := make([]byte, 256)
	n, errno := l.recv(c, buf)
	if errno != 0 || n == 0 {
		t.Fatalf("recv: %d bytes, %v", n, errno)
	}
	if age := time.Duration(ex.Clock.Now() - c.rxAt); age < 30*time.Millisecond || age > 2*time.Second {
		t.Fatalf("read %v after arrival by the stamp; it waited 50 ms unread", age)
	}
}
