// Package version says which tressi is running, from what the Go toolchain
// stamped into the binary: the module version of a `go install …@vX.Y.Z`
// build, or the VCS revision (and whether the tree was modified) of a build
// from a checkout. Results and archives record it, so a number can always be
// traced to the code that produced it.
package version

import (
	"runtime"
	"runtime/debug"
)

// Info is what the binary knows about its own build.
type Info struct {
	// Version is the module version ("v1.2.0"), or "devel" for a build from
	// a checkout or a test binary.
	Version string `json:"version"`
	// Revision is the VCS commit the binary was built from; "" when the
	// build was not stamped (go test, -buildvcs=false, a tarball).
	Revision string `json:"revision,omitempty"`
	// Modified says the checkout had uncommitted changes.
	Modified bool   `json:"modified,omitempty"`
	Time     string `json:"vcs_time,omitempty"`
	Go       string `json:"go"`
}

// stamped is a version set at link time, for builds that have neither a
// module version nor a VCS checkout (the container build copies no .git):
//
//	go build -ldflags "-X github.com/tressi/tressi/version.stamped=v1.2.0" ./cmd/tressi
//
// It wins over the module version.
var stamped string

// Get reads the running binary's build information.
func Get() Info {
	info := Info{Version: "devel", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		info.Version = v
	}
	if stamped != "" {
		info.Version = stamped
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		case "vcs.time":
			info.Time = s.Value
		}
	}
	return info
}

// String is the one-word form results and meta.json record: the version,
// then "+" and the first 12 digits of the revision when there is one, then
// "-dirty" for a modified tree ("devel+3f2a9c1b7e4d-dirty").
func (i Info) String() string {
	s := i.Version
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += "+" + rev
		if i.Modified {
			s += "-dirty"
		}
	}
	return s
}
