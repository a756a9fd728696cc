//go:build !linux

package exec

import (
	"errors"
	"net"
	"sync/atomic"

	"github.com/tressi/tressi/compile"
)

// The event-loop engine drives epoll directly; elsewhere the fasthttp
// engine runs every plan.
type evloop struct{}

func loopSupported() bool { return false }

func (ex *executor) newLoops(int, []*net.TCPAddr) ([]*evloop, error) {
	return nil, errors.New("the loop engine needs Linux")
}

func (ex *executor) startLoopsOpen([]*evloop, func() compile.SlotSource) {}
func (ex *executor) startLoopsClosed([]*evloop, *atomic.Uint64)          {}
func (l *evloop) discard()                                               {}

func lowerThreadPriority() {}

// tlsTransport: the loop's TLS is Linux's too; the fasthttp engine speaks
// TLS itself.
func (ex *executor) tlsTransport(*compile.Target, []string) transportFactory { return nil }

func (l *evloop) wsPart() *wsLoop { return nil }
