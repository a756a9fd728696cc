package schema

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// FromProtoFiles compiles .proto files. files are named as imports name
// them, relative to one of importPaths; open reads a path made of an
// import path and a file name (the plan's file system, so a replay reads
// its copies). The well-known types (google/protobuf/*.proto) resolve
// without files. Errors name the file, line and column.
func FromProtoFiles(ctx context.Context, files, importPaths []string, open func(path string) (io.ReadCloser, error)) (*Schema, error) {
	if len(importPaths) == 0 {
		importPaths = []string{"."}
	}
	var problems []string
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: importPaths,
			Accessor:    open,
		}),
		Reporter: reporter.NewReporter(func(err reporter.ErrorWithPos) error {
			problems = append(problems, err.Error())
			return nil
		}, nil),
	}
	linked, err := c.Compile(ctx, files...)
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	if err != nil {
		return nil, fmt.Errorf("%v (files are found under import_paths %q)", err, importPaths)
	}
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	for _, f := range linked {
		addWithImports(set, seen, f)
	}
	return fromSet(set)
}

// addWithImports adds fd's imports, then fd, each once.
func addWithImports(set *descriptorpb.FileDescriptorSet, seen map[string]bool, fd protoreflect.FileDescriptor) {
	if seen[fd.Path()] {
		return
	}
	seen[fd.Path()] = true
	imports := fd.Imports()
	for i := 0; i < imports.Len(); i++ {
		addWithImports(set, seen, imports.Get(i).FileDescriptor)
	}
	set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
}
