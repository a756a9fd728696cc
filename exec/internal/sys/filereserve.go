package sys

import "os"

// A run's own files must never compete with its connections for file
// descriptors: a plan with more connections than the open-file limit
// allows takes every descriptor there is, and the files written at the end
// (samples.arrow, websocket.json, meta.json) could then not be created,
// leaving meta.json saying "running" (issue 27). So results.arrow is
// created before any connection opens, and a few descriptors are held from
// the start and handed back just before the end's files are written.

// FilesReserved is how many descriptors the end needs at once, with room:
// each end file is a temporary file renamed into place, one at a time.
const FilesReserved = 8

// fileReserve holds descriptors of the null device, nothing else.
type fileReserve struct{ files []*os.File }

// ReserveFiles holds up to n descriptors; fewer when the limit is already
// that close (the end then does what it can, as before).
func ReserveFiles(n int) *fileReserve {
	r := &fileReserve{}
	for range n {
		f, err := os.Open(os.DevNull)
		if err != nil {
			break
		}
		r.files = append(r.files, f)
	}
	return r
}

// Release hands the descriptors back; calling it again does nothing.
func (r *fileReserve) Release() {
	for _, f := range r.files {
		f.Close()
	}
	r.files = nil
}
