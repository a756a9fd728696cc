package plan

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// source reads plan files either from the OS (paths relative to the working
// directory, absolute paths allowed) or from an fs.FS (tests and .tplan
// replays). Keeping both behind one small interface lets the loader join and
// read paths without caring which one it has.
type source interface {
	ReadFile(name string) ([]byte, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	Stat(name string) (fs.FileInfo, error)
	Join(elem ...string) string
	Dir(name string) string
	Base(name string) string
	IsAbs(name string) bool
}

func newSource(fsys fs.FS, moved map[string]string) source {
	if fsys == nil {
		return osSource{}
	}
	return fsSource{fsys, moved}
}

type osSource struct{}

func (osSource) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (osSource) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (osSource) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osSource) Join(elem ...string) string                 { return filepath.Join(elem...) }
func (osSource) Dir(name string) string                     { return filepath.Dir(name) }
func (osSource) IsAbs(name string) bool                     { return filepath.IsAbs(name) }

// Base names a directory by its absolute path's last element, so "." names
// the working directory rather than ".".
func (osSource) Base(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	return filepath.Base(name)
}

type fsSource struct {
	fsys  fs.FS
	moved map[string]string // absolute names the FS holds under another (Options.Moved)
}

// name is where the FS holds name.
func (s fsSource) name(name string) string {
	name = path.Clean(name)
	if m, ok := s.moved[name]; ok {
		return m
	}
	return name
}

func (s fsSource) ReadFile(name string) ([]byte, error) { return fs.ReadFile(s.fsys, s.name(name)) }
func (s fsSource) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(s.fsys, s.name(name))
}
func (s fsSource) Stat(name string) (fs.FileInfo, error) { return fs.Stat(s.fsys, s.name(name)) }
func (fsSource) Join(elem ...string) string              { return path.Join(elem...) }
func (fsSource) Dir(name string) string                  { return path.Dir(name) }
func (fsSource) Base(name string) string                 { return path.Base(name) }
func (fsSource) IsAbs(name string) bool                  { return path.IsAbs(name) }
