package plan

import (
	"fmt"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// stdlibFunctions are go-cty's standard functions, under the names Terraform
// users already know.
var stdlibFunctions = map[string]function.Function{
	"abs":             stdlib.AbsoluteFunc,
	"ceil":            stdlib.CeilFunc,
	"chomp":           stdlib.ChompFunc,
	"coalesce":        stdlib.CoalesceFunc,
	"compact":         stdlib.CompactFunc,
	"concat":          stdlib.ConcatFunc,
	"contains":        stdlib.ContainsFunc,
	"csvdecode":       stdlib.CSVDecodeFunc,
	"distinct":        stdlib.DistinctFunc,
	"element":         stdlib.ElementFunc,
	"flatten":         stdlib.FlattenFunc,
	"floor":           stdlib.FloorFunc,
	"format":          stdlib.FormatFunc,
	"formatlist":      stdlib.FormatListFunc,
	"indent":          stdlib.IndentFunc,
	"index":           stdlib.IndexFunc,
	"join":            stdlib.JoinFunc,
	"jsondecode":      stdlib.JSONDecodeFunc,
	"keys":            stdlib.KeysFunc,
	"length":          stdlib.LengthFunc,
	"log":             stdlib.LogFunc,
	"lookup":          stdlib.LookupFunc,
	"lower":           stdlib.LowerFunc,
	"max":             stdlib.MaxFunc,
	"merge":           stdlib.MergeFunc,
	"min":             stdlib.MinFunc,
	"parseint":        stdlib.ParseIntFunc,
	"pow":             stdlib.PowFunc,
	"range":           stdlib.RangeFunc,
	"regex":           stdlib.RegexFunc,
	"regexall":        stdlib.RegexAllFunc,
	"replace":         stdlib.ReplaceFunc,
	"reverse":         stdlib.ReverseListFunc,
	"signum":          stdlib.SignumFunc,
	"slice":           stdlib.SliceFunc,
	"sort":            stdlib.SortFunc,
	"split":           stdlib.SplitFunc,
	"strrev":          stdlib.ReverseFunc,
	"substr":          stdlib.SubstrFunc,
	"title":           stdlib.TitleFunc,
	"trim":            stdlib.TrimFunc,
	"trimprefix":      stdlib.TrimPrefixFunc,
	"trimspace":       stdlib.TrimSpaceFunc,
	"trimsuffix":      stdlib.TrimSuffixFunc,
	"upper":           stdlib.UpperFunc,
	"values":          stdlib.ValuesFunc,
	"zipmap":          stdlib.ZipmapFunc,
	"tostring":        stdlib.MakeToFunc(cty.String),
	"tonumber":        stdlib.MakeToFunc(cty.Number),
	"tobool":          stdlib.MakeToFunc(cty.Bool),
	"base64encode":    base64EncodeFunc,
	"base64decode":    base64DecodeFunc,
	"urlencode":       urlEncodeFunc,
	"setunion":        stdlib.SetUnionFunc,
	"setintersection": stdlib.SetIntersectionFunc,
	"seconds":         secondsFunc,
}

// holePreserving are the functions that only place strings side by side or
// pick among them, so a per-request value passing through them still means
// the same thing once filled. Any other function would compute on the
// sentinel rather than on the real value, so it rejects per-request values.
var holePreserving = map[string]bool{
	"coalesce": true, "compact": true, "concat": true, "element": true,
	"flatten": true, "format": true, "formatlist": true, "join": true,
	"keys": true, "lookup": true, "merge": true, "tostring": true,
	"values": true, "zipmap": true,
}

// functions returns the plan's function table: the standard functions, file()
// reading relative to the plan directory, and the per-request functions that
// become template holes.
func (l *loader) functions() map[string]function.Function {
	fns := make(map[string]function.Function, len(stdlibFunctions)+4)
	for name, f := range stdlibFunctions {
		if holePreserving[name] {
			fns[name] = f
			continue
		}
		fns[name] = rejectHoles(name, f)
	}
	fns["jsonencode"] = l.jsonEncodeFunc()
	fns["urlencode"] = l.urlEncodeFunc()
	fns["file"] = l.fileFunc()
	fns["base64encode"] = l.base64Func(fns["base64encode"])
	fns["uuid"] = l.uuidFunc()
	fns["random_int"] = l.randomIntFunc()
	return fns
}

// rejectHoles wraps f so it fails, with a message saying why, when an
// argument carries a per-request value.
func rejectHoles(name string, f function.Function) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			for i, a := range args {
				if hasHole(a) {
					return cty.NilVal, function.NewArgErrorf(i,
						"%s() cannot use a per-request value (row.*, captured.*, seq, uuid(), random_int()) or a binary file's bytes: a per-request value is only known when the request is sent, so use it in string interpolation, format(), join(), jsonencode() or urlencode() instead; a binary file goes whole into a body, a multipart file or base64encode()", name)
				}
			}
			return f.Call(args)
		},
	})
}

// jsonEncodeFunc is stdlib's jsonencode, except that per-request values inside
// the JSON it produces are marked to be filled JSON-escaped.
func (l *loader) jsonEncodeFunc() function.Function {
	return function.New(&function.Spec{
		Description: stdlib.JSONEncodeFunc.Description(),
		Params:      stdlib.JSONEncodeFunc.Params(),
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			out, err := stdlib.JSONEncodeFunc.Call(args)
			if err != nil || !out.IsKnown() {
				return out, err
			}
			s, msg := l.holes.jsonEscaped(out.AsString())
			if msg != errNoEncoding {
				return cty.NilVal, function.NewArgErrorf(0, "%s", msg)
			}
			return cty.StringVal(s), nil
		},
	})
}

// urlEncodeFunc is urlencode: literal text is escaped now, with
// url.QueryEscape, and per-request values inside are marked to be filled
// query-escaped when the request is sent.
func (l *loader) urlEncodeFunc() function.Function {
	return function.New(&function.Spec{
		Description: urlEncodeFunc.Description(),
		Params:      urlEncodeFunc.Params(),
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			s, msg := l.holes.urlEncoded(args[0].AsString())
			if msg != errNoEncoding {
				return cty.NilVal, function.NewArgErrorf(0, "%s", msg)
			}
			return cty.StringVal(s), nil
		},
	})
}

// fileFunc reads a file relative to the plan's directory and records it in
// Plan.Sources, so a replay sees the same bytes. Text comes back as a
// string; a file go-cty's strings cannot hold unchanged (not UTF-8, or text
// Unicode normalisation would rewrite) comes back as a blob sentinel, so a
// body or a multipart file sends its exact bytes.
func (l *loader) fileFunc() function.Function {
	return function.New(&function.Spec{
		Description: "Reads a file, relative to the plan's directory: text as a string, any other file as its exact bytes for a body.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := l.readPlanFile(args[0].AsString(), "file()")
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "%v", err)
			}
			return l.fileValue(b), nil
		},
	})
}

// readPlanFile reads a file named by the plan (file(), a multipart file),
// relative to the plan's directory, and keeps it with the plan's sources.
func (l *loader) readPlanFile(name, who string) ([]byte, error) {
	resolved := l.resolve(name)
	if st, err := l.src.Stat(resolved); err == nil && st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s is too large: %d bytes, %s reads at most %d MiB (a request body)", resolved, st.Size(), who, MaxFileBytes>>20)
	}
	b, err := l.src.ReadFile(resolved)
	if err != nil {
		return nil, fmt.Errorf("cannot read %q (looked for %s, relative to the plan's directory): %v", name, resolved, err)
	}
	l.sources[resolved] = b
	l.warnOutside(resolved, nil)
	return b, nil
}

// fileValue is a file's content as a plan value: a string when go-cty keeps
// its bytes as they are, otherwise a blob sentinel.
func (l *loader) fileValue(b []byte) cty.Value {
	if v := cty.StringVal(string(b)); utf8.Valid(b) && v.AsString() == string(b) {
		return v
	}
	return cty.StringVal(l.holes.blobSentinel(b))
}

// uuidFunc is uuid(): a random v4 UUID per request, derived from (seed, slot),
// so a replay sends the same one.
func (l *loader) uuidFunc() function.Function {
	return function.New(&function.Spec{
		Description: "A random version 4 UUID, different for every request and the same on replay.",
		Type:        function.StaticReturnType(cty.String),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.StringVal(l.holes.sentinel(Hole{Kind: HoleUUID})), nil
		},
	})
}

// randomIntFunc is random_int(min, max): an integer in [min, max] per request.
func (l *loader) randomIntFunc() function.Function {
	return function.New(&function.Spec{
		Description: "A random integer in [min, max], different for every request and the same on replay.",
		Params: []function.Parameter{
			{Name: "min", Type: cty.Number},
			{Name: "max", Type: cty.Number},
		},
		Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			lo, err := wholeNumber(args[0])
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "min %v", err)
			}
			hi, err := wholeNumber(args[1])
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(1, "max %v", err)
			}
			if lo > hi {
				return cty.NilVal, function.NewArgErrorf(1, "max (%d) must not be less than min (%d)", hi, lo)
			}
			return cty.StringVal(l.holes.sentinel(Hole{Kind: HoleRandomInt, Min: lo, Max: hi})), nil
		},
	})
}

// wholeNumber converts a known number to int64, refusing fractions.
func wholeNumber(v cty.Value) (int64, error) {
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		return 0, fmt.Errorf("must be a whole number")
	}
	i, acc := bf.Int64()
	if acc != 0 {
		return 0, fmt.Errorf("is out of range")
	}
	return i, nil
}
