//go:build !race

package record

// raceEnabled: the race detector instruments this build (it allocates,
// and slows everything tenfold).
const raceEnabled = false
