//go:build !linux

package cli

import (
	osexec "os/exec"
)

// startOnNormalThread starts cmd: scheduling policies are Linux's.
func startOnNormalThread(cmd *osexec.Cmd) error { return cmd.Start() }
