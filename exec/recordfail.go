package exec

import (
	"errors"
	"fmt"
)

// RecordError is a failure to write the run directory (a full disk, a
// read-only file system, a quota), at the start or in the middle of a run.
// It stops the load at once, since sending requests that cannot be
// recorded only loads the server for nothing, and it is one kind of error
// whenever it happens, so the CLI gives it one exit code.
type RecordError struct {
	Dir string
	Err error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("recording the run in %s failed: %v; the load was stopped, and the files keep what was written before", e.Dir, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// recordError wraps err (nil stays nil; a RecordError is not wrapped twice).
func recordError(dir string, err error) error {
	var re *RecordError
	if err == nil || errors.As(err, &re) {
		return err
	}
	return &RecordError{Dir: dir, Err: err}
}
