//go:build !linux

package loop

// WebSocket sessions run in the loop engine's loops, on Linux only: the
// engine choice refuses them elsewhere (loopUnfit).
type wsLoop struct{ stats *wsStats }
