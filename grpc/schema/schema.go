// Package schema gives tressi the descriptors of a gRPC service: compiled
// from .proto files (github.com/bufbuild/protocompile), read from a
// protoset (a serialized FileDescriptorSet, as protoc
// --descriptor_set_out writes it), or asked of the server's reflection
// service at plan time. Whatever the source, a Schema is a
// FileDescriptorSet, serialized deterministically, so a .tplan and an
// archive can embed it and a replay needs neither the files nor the
// server.
package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Schema is a set of linked file descriptors.
type Schema struct {
	files *protoregistry.Files
	set   []byte // the FileDescriptorSet, serialized deterministically
}

// FromProtoset reads a serialized FileDescriptorSet. Every file's imports
// must be in the set (protoc's --include_imports).
func FromProtoset(data []byte) (*Schema, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("not a protoset (a serialized FileDescriptorSet): %v", err)
	}
	return fromSet(&set)
}

// fromSet links set's files and keeps them in dependency order, without
// source info, serialized deterministically: the same schema, however it
// was found, has the same bytes (and so the same schedule hash).
func fromSet(set *descriptorpb.FileDescriptorSet) (*Schema, error) {
	files, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, fmt.Errorf("the descriptors do not link: %v (a protoset needs its imports: protoc --include_imports)", err)
	}
	ordered := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var visit func(fd protoreflect.FileDescriptor)
	visit = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := 0; i < imports.Len(); i++ {
			visit(imports.Get(i).FileDescriptor)
		}
		fdp := protodesc.ToFileDescriptorProto(fd)
		fdp.SourceCodeInfo = nil
		ordered.File = append(ordered.File, fdp)
	}
	var paths []string
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		paths = append(paths, fd.Path())
		return true
	})
	sort.Strings(paths)
	for _, p := range paths {
		fd, _ := files.FindFileByPath(p)
		visit(fd)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(ordered)
	if err != nil {
		return nil, err
	}
	return &Schema{files: files, set: b}, nil
}

// Protoset is the schema as a serialized FileDescriptorSet, the form a
// .tplan embeds; FromProtoset reads it back.
func (s *Schema) Protoset() []byte { return s.set }

// Method finds a method by its gRPC name, "pkg.Service/Method" (a leading
// "/" is allowed, as the HTTP/2 path has it). The error lists what the
// schema offers.
func (s *Schema) Method(name string) (protoreflect.MethodDescriptor, error) {
	svcName, method, ok := strings.Cut(strings.TrimPrefix(name, "/"), "/")
	if !ok || svcName == "" || method == "" {
		return nil, fmt.Errorf("%q is not a method name: write it as \"package.Service/Method\"", name)
	}
	d, err := s.files.FindDescriptorByName(protoreflect.FullName(svcName))
	svc, isSvc := d.(protoreflect.ServiceDescriptor)
	if err != nil || !isSvc {
		return nil, fmt.Errorf("no service %q in the schema; it has %s", svcName, listOr(s.Services(), "no services"))
	}
	m := svc.Methods().ByName(protoreflect.Name(method))
	if m == nil {
		var names []string
		for i := 0; i < svc.Methods().Len(); i++ {
			names = append(names, string(svc.Methods().Get(i).Name()))
		}
		return nil, fmt.Errorf("service %s has no method %q; it has %s", svcName, method, listOr(names, "none"))
	}
	return m, nil
}

// Services lists the services of the schema's files by full name, sorted.
func (s *Schema) Services() []string {
	var out []string
	s.files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			out = append(out, string(fd.Services().Get(i).FullName()))
		}
		return true
	})
	slices.Sort(out)
	return out
}

func listOr(names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	return strings.Join(names, ", ")
}
