//go:build !linux

package loop

import (
	"errors"
	"net"
	"sync/atomic"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
)

// The event-loop engine drives epoll directly; elsewhere the fasthttp
// engine runs every plan.
type evloop struct{}

func LoopSupported() bool { return false }

func newLoops(*run.Executor, int, []*net.TCPAddr) ([]*evloop, error) {
	return nil, errors.New("the loop engine needs Linux")
}

func startLoopsOpen(*run.Executor, []*evloop, func() compile.SlotSource) {}
func startLoopsClosed(*run.Executor, []*evloop, *atomic.Uint64)          {}
func (l *evloop) discard()                                               {}

// tlsTransport: the loop's TLS is Linux's too; the fasthttp engine speaks
// TLS itself.
func tlsTransport(*run.Executor, *compile.Target, []string) run.TransportFactory { return nil }

func (l *evloop) wsPart() *wsLoop { return nil }
