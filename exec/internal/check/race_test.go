//go:build race

package check

// raceEnabled: the race detector instruments this build (it allocates,
// and slows everything tenfold).
const raceEnabled = true
