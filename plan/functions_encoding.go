package plan

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// The encoding functions Terraform users expect but go-cty's stdlib lacks.

var base64EncodeFunc = function.New(&function.Spec{
	Description: "Encodes a string's UTF-8 bytes as standard base64.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

var base64DecodeFunc = function.New(&function.Spec{
	Description: "Decodes standard base64 into a UTF-8 string.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "not valid base64: %v", err)
		}
		if !utf8.Valid(b) {
			return cty.NilVal, function.NewArgErrorf(0, "the decoded bytes are not valid UTF-8 text")
		}
		return cty.StringVal(string(b)), nil
	},
})

var urlEncodeFunc = function.New(&function.Spec{
	Description: "Escapes a string for use in a URL query.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(url.QueryEscape(args[0].AsString())), nil
	},
})

// base64Func wraps a base64encode so a binary file's bytes (a blob
// sentinel) are encoded as they are: base64encode(file("logo.png")).
func (l *loader) base64Func(f function.Function) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if t := l.holes.template(args[0].AsString()); t.Static() {
				return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(t.Literal()))), nil
			}
			return f.Call(args)
		},
	})
}

// base64RowFunc is base64encode where row.* is available. A value made of
// literal text and row.* columns only is known for every row before the
// run, so it becomes a column of its own, computed now: Tinode's login
// secret, base64("${row.username}:${row.password}"), is sent as it would be
// with the value written in the CSV file. Any other per-request value is
// rejected, as base64encode does everywhere.
func (l *loader) base64RowFunc(d *Data) function.Function {
	return function.New(&function.Spec{
		Description: base64EncodeFunc.Description(),
		Params:      base64EncodeFunc.Params(),
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if !hasHole(args[0]) {
				return base64EncodeFunc.Call(args)
			}
			t := l.holes.template(args[0].AsString())
			name := "base64encode("
			for _, p := range t.Parts {
				if p.Hole == nil {
					name += p.Literal
					continue
				}
				if p.Hole.Kind != HoleRow || p.Hole.JSONEscape || p.Hole.URLEncode {
					return cty.NilVal, function.NewArgErrorf(0, "base64encode() cannot use a per-request value other than row.* (computed for every row before the run): captured.*, seq, uuid() and random_int() are only known when the request is sent")
				}
				name += "${row." + p.Hole.Name + "}"
			}
			name += ")"
			if !slices.Contains(d.Columns, name) {
				col := map[string]int{}
				for i, c := range d.Columns {
					col[c] = i
				}
				for i, row := range d.Rows {
					var b strings.Builder
					for _, p := range t.Parts {
						if p.Hole == nil {
							b.WriteString(p.Literal)
						} else {
							b.WriteString(row[col[p.Hole.Name]])
						}
					}
					d.Rows[i] = append(row, base64.StdEncoding.EncodeToString([]byte(b.String())))
				}
				d.Columns = append(d.Columns, name)
			}
			return cty.StringVal(l.holes.sentinel(Hole{Kind: HoleRow, Name: name})), nil
		},
	})
}
