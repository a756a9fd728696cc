package exec

import (
	"time"

	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/exec/internal/run"
)

// The names exec's callers use, which its internal packages define.

// The engines.
const (
	EngineLoop     = run.EngineLoop
	EngineFasthttp = run.EngineFasthttp
)

// The files of a run directory.
const (
	PlanFile    = record.PlanFile
	MetaFile    = record.MetaFile
	ResultsFile = record.ResultsFile
	SamplesFile = record.SamplesFile
)

type (
	// InputError is an error in what Run was given (the schedule, the
	// options): the user can fix it. Every other error of Run is the run
	// failing (exit code 3 in the CLI).
	InputError = run.InputError
	// Meta is meta.json's content.
	Meta = record.Meta
	// MetaTLS is meta.json's tls object.
	MetaTLS = record.MetaTLS
	// LiveRun is what a live view reads of a running run.
	LiveRun = run.LiveRun
	// Gauges are a run's live counters.
	Gauges = run.Gauges
)

// DefaultRunDir is the run directory of a plan run at t when none is named.
func DefaultRunDir(planName string, t time.Time) string { return record.DefaultRunDir(planName, t) }
