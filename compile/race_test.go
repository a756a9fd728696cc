//go:build race

package compile

// raceEnabled: the race detector instruments this build (it slows large
// copies and allocations tenfold).
const raceEnabled = true
