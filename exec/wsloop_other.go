//go:build !linux

package exec

import (
	"errors"
	"sync/atomic"

	"github.com/tressi/tressi/compile"
)

func (ex *executor) startWSLoops(int, []*wsProgram, func() compile.SlotSource, *atomic.Uint64, uint32) ([]*wsStats, error) {
	return nil, errors.New("WebSocket sessions run on Linux only")
}
