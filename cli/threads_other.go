//go:build !linux

package cli

// yieldToLoops, backToNormal and idleForLoops: scheduling policies are
// Linux's (see threads_linux.go).
func yieldToLoops(bool)           {}
func backToNormal()               {}
func idleForLoops(_, _ bool) bool { return false }
