//go:build !linux

package exec

import (
	"errors"

	"github.com/tressi/tressi/compile"
)

func (ex *executor) startWSLoops(int, []*wsProgram, func() compile.SlotSource, uint32) ([]*wsStats, error) {
	return nil, errors.New("WebSocket sessions run on Linux only")
}
