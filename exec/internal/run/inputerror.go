package run

// InputError is an error in what Run was given (the schedule, the
// options): the user can fix it. Every other error of Run is the run
// failing (exit code 3 in the CLI).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }
