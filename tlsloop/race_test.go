//go:build race

package tlsloop

// raceEnabled: the race detector changes what allocates.
const raceEnabled = true
