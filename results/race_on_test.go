//go:build race

package results

// raceEnabled makes the exhaustive tests sample instead: the race detector
// makes each read many times slower.
const raceEnabled = true
