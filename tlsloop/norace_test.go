//go:build !race

package tlsloop

const raceEnabled = false
