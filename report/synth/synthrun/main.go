// Command synthrun writes a synthetic run directory for trying and timing
// `tressi report` on many rows, e.g.
//
//	go run ./report/synth/synthrun -rows 5000000 -out /tmp/tressi-5m
//	time go run ./cmd/tressi report /tmp/tressi-5m
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tressi/tressi/report/synth"
	"github.com/tressi/tressi/results"
)

func main() {
	rows := flag.Int("rows", 5_000_000, "slots in the synthetic schedule")
	seed := flag.Uint64("seed", 1, "random seed: same seed, same rows")
	rate := flag.Float64("rate", 10_000, "requests per second")
	out := flag.String("out", "tressi-synthetic", "run directory to write")
	shard := flag.String("shard", "0/1", "write only stripe i/n of the slots")
	hash := flag.String("hash", "", "schedule hash to write (default synthetic-SEED-ROWS); give two runs one hash to diff them slot by slot")
	sessions := flag.Bool("sessions", false, "make about a quarter of the slots scenario sessions")
	knownSlots := flag.Bool("known-slots", true, "write the slot count into the metadata, as tressi does for an open-model run (the report then checks every slot has a row)")
	flag.Parse()
	sh, err := results.ParseShard(*shard)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n, err := synth.WriteRun(*out, synth.Spec{Rows: *rows, Seed: *seed, Rate: *rate, Shard: sh, Sessions: *sessions, Hash: *hash, KnownSlots: *knownSlots})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d rows to %s\n", n, *out)
}
