// Package background puts the live views' work (the feed's interval, the
// remote-write pusher, the dashboard's event streams) on threads of the
// lowest priority. That work runs about once a second and takes a few ms
// each time; on a normal-priority thread beside a loop on one core it had
// the core half the time for as long, and the open model's sends due
// meanwhile went out up to 12 ms late, once a second (bench/live, the live
// views on). At nice 19 a loop that wakes takes the core back at once.
package background

// Thread locks the calling goroutine to its thread, for good, and gives
// that thread the lowest priority (nice 19) where the system has one. The
// thread ends with the goroutine instead of going back to the runtime at
// nice 19, where any goroutine could land on it. Best effort: where it
// cannot, the thread keeps its priority.
func Thread() { thread() }
