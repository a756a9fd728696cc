//go:build !linux

package cli

import (
	osexec "os/exec"
)

// startWithDefaultSlice starts cmd: only Linux takes a slice of one's own.
func startWithDefaultSlice(cmd *osexec.Cmd) error { return cmd.Start() }
