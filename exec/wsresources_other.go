//go:build !linux

package exec

import "github.com/tressi/tressi/compile"

func checkWSResources(*compile.Schedule, int64) error { return nil }
