//go:build !race

package session

// raceEnabled: the race detector instruments this build (it allocates,
// and slows everything tenfold).
const raceEnabled = false
