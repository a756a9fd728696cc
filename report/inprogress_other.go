//go:build !unix

package report

// processAlive cannot tell here: a "running" run reads as not finished.
func processAlive(int) bool { return false }
