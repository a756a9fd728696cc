package plan

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/tressi/tressi/grpc"
)

// messageValue checks v, an HCL object, against md: every key names a
// field (by its proto or JSON name), every value fits its field's type,
// at most one field of a oneof is set. path names the value in messages
// ("message.inner.note").
func (l *loader) messageValue(attr *hcl.Attribute, v cty.Value, md protoreflect.MessageDescriptor, path string, sc scope) (*MessageValue, hcl.Diagnostics) {
	v, marks := v.Unmark()
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, hcl.Diagnostics{attrError(attr, "Invalid message",
			fmt.Sprintf("%s must be an object of %s's fields, such as { %s = ... } (got %s).", path, md.FullName(), exampleField(md), v.Type().FriendlyName()))}
	}
	var diags hcl.Diagnostics
	mv := &MessageValue{Desc: md}
	oneofs := map[protoreflect.FullName]string{}
	elems := elementsByKey(v)
	for _, key := range sortedKeys(elems) {
		ev := elems[key].WithMarks(marks)
		fd := md.Fields().ByName(protoreflect.Name(key))
		if fd == nil {
			fd = md.Fields().ByJSONName(key)
		}
		fpath := path + "." + key
		if fd == nil {
			diags = append(diags, attrError(attr, "Unknown message field",
				fmt.Sprintf("%s: %s has no field %q; its fields are %s.", fpath, md.FullName(), key, fieldNames(md))))
			continue
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if prev, dup := oneofs[od.FullName()]; dup {
				diags = append(diags, attrError(attr, "Two fields of a oneof",
					fmt.Sprintf("%s: %s and %s are both in oneof %s; set one of them.", fpath, prev, key, od.Name())))
				continue
			}
			oneofs[od.FullName()] = key
		}
		if ev.IsNull() {
			continue
		}
		f, d := l.fieldValue(attr, ev, fd, fpath, sc)
		diags = append(diags, d...)
		if f != nil {
			mv.Fields = append(mv.Fields, *f)
		}
	}
	return mv, diags
}

// fieldValue checks one field: a list for a repeated field, an object for
// a map or a message, a scalar otherwise.
func (l *loader) fieldValue(attr *hcl.Attribute, v cty.Value, fd protoreflect.FieldDescriptor, path string, sc scope) (*FieldValue, hcl.Diagnostics) {
	f := &FieldValue{Desc: fd}
	uv, _ := v.Unmark()
	switch {
	case fd.IsMap():
		if !uv.Type().IsObjectType() && !uv.Type().IsMapType() {
			return nil, hcl.Diagnostics{attrError(attr, "Invalid map field", fmt.Sprintf("%s is a map; write it as an object, such as { key = \"value\" }.", path))}
		}
		var diags hcl.Diagnostics
		f.List = []FieldValue{}
		entry := fd.Message()
		elems := elementsByKey(uv)
		for _, key := range sortedKeys(elems) {
			kf, d := l.scalarValue(attr, cty.StringVal(key), entry.Fields().ByNumber(1), path+"["+strconv.Quote(key)+"]", sc)
			diags = append(diags, d...)
			vf, d := l.singular(attr, elems[key], entry.Fields().ByNumber(2), path+"["+strconv.Quote(key)+"]", sc)
			diags = append(diags, d...)
			if kf != nil && vf != nil {
				f.List = append(f.List, FieldValue{Desc: fd, Message: &MessageValue{Desc: entry, Fields: []FieldValue{*kf, *vf}}})
			}
		}
		return f, diags
	case fd.IsList():
		if !uv.Type().IsTupleType() && !uv.Type().IsListType() && !uv.Type().IsSetType() {
			return nil, hcl.Diagnostics{attrError(attr, "Invalid repeated field", fmt.Sprintf("%s is repeated; write it as a list, such as [ ... ].", path))}
		}
		var diags hcl.Diagnostics
		f.List = []FieldValue{}
		i := 0
		for it := uv.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			e, d := l.singular(attr, ev, fd, fmt.Sprintf("%s[%d]", path, i), sc)
			diags = append(diags, d...)
			if e != nil {
				f.List = append(f.List, *e)
			}
		}
		return f, diags
	}
	return l.singular(attr, v, fd, path, sc)
}

// singular checks one value of a field: a nested message or a scalar.
func (l *loader) singular(attr *hcl.Attribute, v cty.Value, fd protoreflect.FieldDescriptor, path string, sc scope) (*FieldValue, hcl.Diagnostics) {
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		mv, d := l.messageValue(attr, v, fd.Message(), path, sc)
		if mv == nil {
			return nil, d
		}
		return &FieldValue{Desc: fd, Message: mv}, d
	}
	return l.scalarValue(attr, v, fd, path, sc)
}

// scalarValue checks a scalar against its kind and keeps it as text.
// Fixed values are checked in full here; a per-request value may fill a
// string or bytes field anywhere, and a number field only as the whole
// value and only from seq, random_int(), each.index or a data column whose
// every row holds such a number.
func (l *loader) scalarValue(attr *hcl.Attribute, v cty.Value, fd protoreflect.FieldDescriptor, path string, sc scope) (*FieldValue, hcl.Diagnostics) {
	f, diags := l.scalarText(attr, v, fd, path, sc)
	if f != nil && v.ContainsMarked() {
		if _, marks := v.UnmarkDeep(); marks.Has(sensitiveMark) {
			l.noteSensitive(f.Scalar)
		}
	}
	return f, diags
}

func (l *loader) scalarText(attr *hcl.Attribute, v cty.Value, fd protoreflect.FieldDescriptor, path string, sc scope) (*FieldValue, hcl.Diagnostics) {
	v, _ = v.UnmarkDeep()
	bad := func(want string) (*FieldValue, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{attrError(attr, "Invalid message field",
			fmt.Sprintf("%s is a %s field: it takes %s (got %s).", path, kindName(fd), want, display(v)))}
	}
	kind := fd.Kind()
	if kind == protoreflect.BoolKind && v.Type() == cty.Bool {
		return &FieldValue{Desc: fd, Scalar: LiteralTemplate(strconv.FormatBool(v.True()))}, nil
	}
	if kind == protoreflect.EnumKind {
		return l.enumValue(attr, v, fd, path)
	}
	if v.Type() == cty.Number {
		if kind == protoreflect.StringKind || kind == protoreflect.BytesKind {
			s, _ := convert.Convert(v, cty.String)
			return &FieldValue{Desc: fd, Scalar: LiteralTemplate(s.AsString())}, nil
		}
		text, ok := numberText(v.AsBigFloat(), fd)
		if !ok {
			return bad(numberRange(fd))
		}
		return &FieldValue{Desc: fd, Scalar: LiteralTemplate(text)}, nil
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil || s.IsNull() {
		return bad("a " + map[bool]string{true: "string", false: "value"}[kind == protoreflect.StringKind])
	}
	t := l.holes.template(s.AsString())
	switch kind {
	case protoreflect.StringKind, protoreflect.BytesKind:
		return &FieldValue{Desc: fd, Scalar: t}, nil
	case protoreflect.BoolKind:
		if lit := t.Literal(); t.Static() && (lit == "true" || lit == "false") {
			return &FieldValue{Desc: fd, Scalar: t}, nil
		}
		return bad("true or false")
	}
	if t.Static() {
		f, ok := new(big.Float).SetString(t.Literal())
		text := ""
		if ok {
			text, ok = numberText(f, fd)
		}
		if !ok {
			return bad(numberRange(fd))
		}
		return &FieldValue{Desc: fd, Scalar: LiteralTemplate(text)}, nil
	}
	if d := l.numericHole(attr, t, fd, path, sc); d != nil {
		return nil, d
	}
	return &FieldValue{Desc: fd, Scalar: t}, nil
}

// numericHole checks a per-request value for a number field: a single
// hole that always renders a number the field holds.
func (l *loader) numericHole(attr *hcl.Attribute, t Template, fd protoreflect.FieldDescriptor, path string, sc scope) hcl.Diagnostics {
	fail := func(why string) hcl.Diagnostics {
		return hcl.Diagnostics{attrError(attr, "Invalid per-request number", fmt.Sprintf("%s is a %s field: %s.", path, kindName(fd), why))}
	}
	if len(t.Parts) != 1 || t.Parts[0].Hole == nil {
		return fail("a per-request value must be the whole value (id = seq), not part of a text")
	}
	h := t.Parts[0].Hole
	switch h.Kind {
	case HoleSeq, HoleEachIndex:
		return nil
	case HoleRandomInt:
		if _, ok := numberText(new(big.Float).SetInt64(h.Min), fd); !ok {
			return fail("random_int's range does not fit it")
		}
		if _, ok := numberText(new(big.Float).SetInt64(h.Max), fd); !ok {
			return fail("random_int's range does not fit it")
		}
		return nil
	case HoleRow:
		if sc.data == nil {
			return nil // row.* itself was reported
		}
		col := -1
		for i, c := range sc.data.Columns {
			if c == h.Name {
				col = i
			}
		}
		for n, row := range sc.data.Rows {
			if col < 0 || col >= len(row) {
				break
			}
			f, ok := new(big.Float).SetString(strings.TrimSpace(row[col]))
			if ok {
				_, ok = numberText(f, fd)
			}
			if !ok {
				return fail(fmt.Sprintf("row %d of %s's column %q holds %q, not %s", n+1, sc.data.Name, h.Name, row[col], numberRange(fd)))
			}
		}
		return nil
	}
	return fail("only seq, random_int(), each.index and data columns fill number fields per request; a captured value goes into a string field")
}

// numberText is f written as the field's kind holds it, false when it
// does not fit (a fraction in an integer, out of range).
func numberText(f *big.Float, fd protoreflect.FieldDescriptor) (string, bool) {
	switch fd.Kind() {
	case protoreflect.FloatKind:
		x, _ := f.Float32()
		if math.IsInf(float64(x), 0) {
			return "", false
		}
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case protoreflect.DoubleKind:
		x, _ := f.Float64()
		if math.IsInf(x, 0) {
			return "", false
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	if !f.IsInt() {
		return "", false
	}
	i, _ := f.Int(nil)
	lo, hi := intRange(fd)
	if i.Cmp(lo) < 0 || i.Cmp(hi) > 0 {
		return "", false
	}
	return i.String(), true
}

func intRange(fd protoreflect.FieldDescriptor) (lo, hi *big.Int) {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.EnumKind:
		return big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return big.NewInt(0), big.NewInt(math.MaxUint32)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64)
	}
	return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
}

func numberRange(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "a number"
	}
	lo, hi := intRange(fd)
	return fmt.Sprintf("a whole number from %s to %s", lo, hi)
}

// enumValue takes an enum by its value's name or its number.
func (l *loader) enumValue(attr *hcl.Attribute, v cty.Value, fd protoreflect.FieldDescriptor, path string) (*FieldValue, hcl.Diagnostics) {
	ed := fd.Enum()
	var names []string
	for i := 0; i < ed.Values().Len(); i++ {
		names = append(names, string(ed.Values().Get(i).Name()))
	}
	bad := hcl.Diagnostics{attrError(attr, "Invalid enum value",
		fmt.Sprintf("%s is a %s: it takes one of %s, or a number (got %s).", path, ed.FullName(), strings.Join(names, ", "), display(v)))}
	switch v.Type() {
	case cty.Number:
		text, ok := numberText(v.AsBigFloat(), fd)
		if !ok {
			return nil, bad
		}
		return &FieldValue{Desc: fd, Scalar: LiteralTemplate(text)}, nil
	case cty.String:
		if hasHole(v) {
			return nil, bad
		}
		ev := ed.Values().ByName(protoreflect.Name(v.AsString()))
		if ev == nil {
			return nil, bad
		}
		return &FieldValue{Desc: fd, Scalar: LiteralTemplate(strconv.Itoa(int(ev.Number())))}, nil
	}
	return nil, bad
}

// elementsByKey is an object's or a map's elements by key.
func elementsByKey(v cty.Value) map[string]cty.Value {
	out := map[string]cty.Value{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		out[k.AsString()] = e
	}
	return out
}

func sortedKeys(m map[string]cty.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func kindName(fd protoreflect.FieldDescriptor) string {
	if fd.Kind() == protoreflect.EnumKind {
		return string(fd.Enum().FullName())
	}
	return fd.Kind().String()
}

func fieldNames(md protoreflect.MessageDescriptor) string {
	var names []string
	for i := 0; i < md.Fields().Len(); i++ {
		names = append(names, string(md.Fields().Get(i).Name()))
	}
	if len(names) == 0 {
		return "none (it is empty: leave message out)"
	}
	return strings.Join(names, ", ")
}

func exampleField(md protoreflect.MessageDescriptor) string {
	if md.Fields().Len() == 0 {
		return ""
	}
	return string(md.Fields().Get(0).Name())
}

// grpcStatusAttr reads an expect block's status for a gRPC call: gRPC
// codes, by number (0–16) or name ("NOT_FOUND").
func (l *loader) grpcStatusAttr(attrs hcl.Attributes, name string) ([]int, hcl.Diagnostics) {
	v, attr, diags := l.typed(attrs, name, cty.List(cty.String), scope{what: name})
	if v == cty.NilVal {
		return nil, diags
	}
	v, _ = v.UnmarkDeep()
	var codes []int
	for _, e := range v.AsValueSlice() {
		c, ok := grpc.ParseCode(e.AsString())
		if !ok {
			diags = append(diags, attrError(attr, "Invalid status code",
				fmt.Sprintf("%s of a gRPC call lists gRPC codes, 0 to 16 or names such as \"NOT_FOUND\" (got %q).", name, e.AsString())))
			continue
		}
		codes = append(codes, int(c))
	}
	return codes, diags
}
