//go:build !linux

package background

import "runtime"

func thread() { runtime.LockOSThread() }
