// Package cli is tressi's command tree. It binds flags to options and calls
// the packages that do the work; cmd/tressi only hands it the process's
// arguments, environment and streams, so every command is testable in-process.
package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/tressi/tressi/version"
)

// Exit codes (docs/contracts.md, "Exit codes").
const (
	ExitOK          = 0
	ExitInvalid     = 1   // invalid input: plan, flags, files
	ExitThresholds  = 2   // thresholds failed or early exit
	ExitInternal    = 3   // internal error
	ExitInterrupted = 130 // interrupted; results kept
)

// Version is the tressi version, stamped into results and archives: the
// module version or VCS revision the toolchain recorded in the binary.
var Version = version.Get().String()

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so Main exits with code. A nil err with a non-zero code
// means the command already told the user what happened.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// env is what a command may read from the process, passed in explicitly.
type env struct {
	environ []string
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
}

// Main runs tressi with args and returns the process exit code.
func Main(args, environ []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	// A panic is a bug: exit 3 with what to report, never Go's own exit
	// status 2, which tressi uses for failed thresholds.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "Error: internal error (a bug in tressi; please report it with this message): panic: %v\n\n%s", r, debug.Stack())
			code = ExitInternal
		}
	}()
	e := &env{environ: environ, stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRoot(e)
	root.SetArgs(terraformStyleFlags(args))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", ee.err)
		}
		return ee.code
	}
	// cobra's own errors: unknown flags, wrong argument counts. The help
	// that answers them is the command's own.
	if cmd == nil {
		cmd = root
	}
	fmt.Fprintf(stderr, "Error: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
	return ExitInvalid
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "tressi",
		Short:         "Load testing with exact, reproducible schedules and honest latency",
		Long:          "tressi compiles an HCL load plan into a flat request schedule, replays it with a\nlock-free HTTP executor, records every request into Arrow files, and reports offline.",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, add := range commands {
		root.AddCommand(add(e))
	}
	return root
}

// commands holds each subcommand's constructor; every command file registers
// its own in init, so commands can be added without touching this file.
var commands []func(*env) *cobra.Command

func register(c func(*env) *cobra.Command) { commands = append(commands, c) }
