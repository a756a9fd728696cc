package plan

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tressi/tressi/grpc/schema"
)

var protoSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "files"},
		{Name: "import_paths"},
		{Name: "protoset"},
		{Name: "reflection"},
	},
}

// decodeGRPCTarget reads a gRPC target's proto block and loads its schema;
// a proto block on another target is an error.
func (l *loader) decodeGRPCTarget(t *Target, blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var pb *hcl.Block
	for _, b := range blocks {
		if b.Type != "proto" {
			continue
		}
		if pb != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate proto block",
				Detail: fmt.Sprintf("target %q has more than one proto block; a target has one schema.", t.Name), Subject: b.DefRange.Ptr()})
			continue
		}
		pb = b
	}
	if t.Protocol != ProtocolGRPC {
		if pb != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "proto block on a non-gRPC target",
				Detail: fmt.Sprintf("target %q has a proto block but speaks %q; set protocol = \"grpc\" (or a grpc:// url) to call gRPC methods.", t.Name, t.Protocol), Subject: pb.DefRange.Ptr()})
		}
		return diags
	}
	if pb == nil {
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing proto block",
			Detail:  fmt.Sprintf("gRPC target %q needs its schema: add proto { files = [\"service.proto\"] }, proto { protoset = \"service.protoset\" } or proto { reflection = true }.", t.Name),
			Subject: t.DeclRange.Ptr()})
	}
	g := &GRPCTarget{DeclRange: pb.DefRange}
	t.GRPC = g
	content, d := pb.Body.Content(protoSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	var set []string
	if v, attr, d := l.typed(attrs, "files", cty.List(cty.String), scope{what: "proto files"}); attr != nil {
		diags = append(diags, d...)
		g.Files = stringList(v)
		set = append(set, "files")
		if v != cty.NilVal && len(g.Files) == 0 {
			diags = append(diags, attrError(attr, "Invalid files", "files is empty: list the .proto files that define the service, such as [\"echo.proto\"]."))
		}
	}
	if v, attr, d := l.typed(attrs, "import_paths", cty.List(cty.String), scope{what: "proto import_paths"}); attr != nil {
		diags = append(diags, d...)
		g.ImportPaths = stringList(v)
		if g.Files == nil {
			diags = append(diags, attrError(attr, "import_paths without files", "import_paths says where .proto files and their imports are found; it goes with files."))
		}
	}
	if s, attr, d := l.stringAttr(attrs, "protoset"); attr != nil {
		diags = append(diags, d...)
		g.Protoset = s
		set = append(set, "protoset")
	}
	if on, isSet, d := l.boolAttr(attrs, "reflection"); isSet {
		diags = append(diags, d...)
		g.Reflection = on
		if on {
			set = append(set, "reflection")
		}
	}
	if diags.HasErrors() {
		return diags
	}
	if len(set) != 1 {
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Ambiguous proto block",
			Detail:  fmt.Sprintf("a proto block names its schema one way: files (with import_paths), protoset, or reflection = true (got %s).", listOrNone(set)),
			Subject: pb.DefRange.Ptr()})
	}
	sc, err := l.loadSchema(t, g)
	if err != nil {
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot load the gRPC schema",
			Detail: fmt.Sprintf("target %q: %v.", t.Name, err), Subject: pb.DefRange.Ptr()})
	}
	g.Schema = sc
	return diags
}

func listOrNone(set []string) string {
	if len(set) == 0 {
		return "none"
	}
	return quoteList(set)
}

func stringList(v cty.Value) []string {
	if v == cty.NilVal || v.IsNull() {
		return nil
	}
	v, _ = v.UnmarkDeep()
	out := []string{}
	for _, e := range v.AsValueSlice() {
		out = append(out, e.AsString())
	}
	return out
}

// loadSchema reads the target's schema: the descriptors a replay hands in
// (Options.Descriptors), else its files, protoset or reflection service.
// Files read join the plan's sources; every schema joins the plan's
// descriptors, which a .tplan embeds.
func (l *loader) loadSchema(t *Target, g *GRPCTarget) (*schema.Schema, error) {
	if d, ok := l.opts.Descriptors[t.Name]; ok {
		return schema.FromProtoset(d)
	}
	var sc *schema.Schema
	var err error
	switch {
	case g.Files != nil:
		paths := g.ImportPaths
		if len(paths) == 0 {
			paths = []string{"."}
		}
		resolved := make([]string, len(paths))
		for i, p := range paths {
			resolved[i] = l.resolve(p)
		}
		sc, err = schema.FromProtoFiles(context.Background(), g.Files, resolved, func(p string) (io.ReadCloser, error) {
			b, err := l.src.ReadFile(p)
			if err != nil {
				return nil, err
			}
			l.sources[p] = b
			return io.NopCloser(bytes.NewReader(b)), nil
		})
	case g.Protoset != "":
		path := l.resolve(g.Protoset)
		b, rerr := l.src.ReadFile(path)
		if rerr != nil {
			return nil, fmt.Errorf("%v (the path is relative to the plan file's directory)", rerr)
		}
		l.sources[path] = b
		sc, err = schema.FromProtoset(b)
	default:
		ctx, cancel := context.WithTimeout(context.Background(), t.ConnectTimeout+t.Timeout)
		defer cancel()
		cfg, cerr := reflectionTLS(t)
		if cerr != nil {
			return nil, cerr
		}
		base := *t.URL
		base.Scheme = httpScheme(t.URL.Scheme)
		sc, err = schema.FromReflection(ctx, &base, cfg)
		if err != nil {
			err = fmt.Errorf("%v; with reflection = true the server must be up when the plan is checked (or name files or a protoset instead)", err)
		}
	}
	if err != nil {
		return nil, err
	}
	if l.descriptors == nil {
		l.descriptors = map[string][]byte{}
	}
	l.descriptors[t.Name] = sc.Protoset()
	return sc, nil
}

// httpScheme is what an http.Client calls a target's scheme.
func httpScheme(s string) string {
	switch s {
	case "grpc", "ws":
		return "http"
	case "grpcs", "wss":
		return "https"
	}
	return s
}

// reflectionTLS is the tls block's trust for the reflection call at load
// time (the run builds its own from the same block).
func reflectionTLS(t *Target) (*tls.Config, error) {
	if httpScheme(t.URL.Scheme) != "https" {
		return nil, nil
	}
	cfg := &tls.Config{ServerName: t.TLS.ServerName, InsecureSkipVerify: t.InsecureSkipVerify, NextProtos: []string{"h2"}}
	if t.TLS.CAFile != "" {
		pem, err := os.ReadFile(t.TLS.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading ca_file for reflection: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_file %s holds no PEM certificate", t.TLS.CAFile)
		}
		cfg.RootCAs = pool
	}
	if t.TLS.CertFile != "" && t.TLS.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.TLS.CertFile, t.TLS.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("client certificate for reflection: %v", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
