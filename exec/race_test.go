//go:build race

package exec

// raceEnabled: the race detector changes what allocates.
const raceEnabled = true
