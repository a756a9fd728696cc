//go:build !linux

package cli

// yieldToLoops and backToNormal: scheduling policies are Linux's (see
// threads_linux.go).
func yieldToLoops() {}
func backToNormal() {}
