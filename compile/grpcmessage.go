package compile

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/hashicorp/hcl/v2"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/tressi/tressi/plan"
)

// MessageTemplate is a protobuf message compiled for sending: runs of
// bytes encoded at compile time (every field without a per-request value,
// tags included) between the fields that vary, each a Splice rendered per
// request and encoded by its kind. Append encodes it into the caller's
// buffer: no reflection and no allocation per request.
type MessageTemplate struct {
	Parts []MessagePart
}

// MessagePart is a fixed run of bytes (Fixed), a varying scalar (Value,
// encoded by Kind after Tag), or a length-delimited block of parts
// (Nested, after Tag: a message field, or a packed repeated field's run)
// holding some varying value.
type MessagePart struct {
	Fixed  []byte            `json:",omitempty"`
	Tag    []byte            `json:",omitempty"` // the field's encoded tag; empty inside a packed run
	Kind   protoreflect.Kind `json:",omitempty"`
	Value  Splice            `json:",omitzero"`
	Nested *MessageTemplate  `json:",omitempty"`
	// Implicit: a proto3 field without presence, left out when its value
	// renders as the zero value, as protobuf's encoders leave it out.
	Implicit bool `json:",omitempty"`
}

// Static reports whether the message has no varying part.
func (m *MessageTemplate) Static() bool {
	return len(m.Parts) == 0 || len(m.Parts) == 1 && m.Parts[0].Fixed != nil
}

// Append encodes the message for v onto dst.
func (m *MessageTemplate) Append(dst []byte, v *Values) []byte {
	for i := range m.Parts {
		dst = m.Parts[i].append(dst, v)
	}
	return dst
}

func (p *MessagePart) append(dst []byte, v *Values) []byte {
	if p.Fixed != nil {
		return append(dst, p.Fixed...)
	}
	start := len(dst)
	dst = append(dst, p.Tag...)
	if p.Nested != nil {
		return appendDelimited(dst, func(b []byte) []byte { return p.Nested.Append(b, v) })
	}
	var zero bool
	dst, zero = appendScalar(dst, p.Kind, &p.Value, v)
	if zero && p.Implicit {
		return dst[:start]
	}
	return dst
}

// appendDelimited appends a length prefix and what body appends, moving
// the body when its length needs more than the one byte reserved.
func appendDelimited(dst []byte, body func([]byte) []byte) []byte {
	at := len(dst)
	dst = append(dst, 0)
	dst = body(dst)
	n := len(dst) - at - 1
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		dst = slices.Grow(dst, size-1)[:len(dst)+size-1]
		copy(dst[at+size:], dst[at+1:at+1+n])
	}
	protowire.AppendVarint(dst[at:at], uint64(n))
	return dst
}

// appendScalar renders sp and encodes it as kind; zero says it was the
// kind's zero value. A number is rendered into dst's spare room, parsed,
// and replaced by its encoding. Text that is no number (the plan checks
// every source of it) encodes as 0.
func appendScalar(dst []byte, kind protoreflect.Kind, sp *Splice, v *Values) ([]byte, bool) {
	switch kind {
	case protoreflect.StringKind, protoreflect.BytesKind:
		at := len(dst)
		dst = appendDelimited(dst, func(b []byte) []byte { return sp.Append(b, v) })
		return dst, dst[at] == 0
	}
	at := len(dst)
	dst = sp.Append(dst, v)
	text := dst[at:]
	var bits uint64
	switch kind {
	case protoreflect.BoolKind:
		if string(text) == "true" {
			bits = 1
		}
	case protoreflect.FloatKind:
		f, _ := strconv.ParseFloat(bytesText(text), 32)
		bits = uint64(math.Float32bits(float32(f)))
	case protoreflect.DoubleKind:
		f, _ := strconv.ParseFloat(bytesText(text), 64)
		bits = math.Float64bits(f)
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		bits = parseUint(text)
	default:
		bits = uint64(parseInt(text))
	}
	return appendNumber(dst[:at], kind, bits), bits == 0
}

// bytesText views b as a string for a parser that keeps nothing of it.
func bytesText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// appendNumber encodes a number's bits (an integer's two's complement,
// a float's IEEE bits) as kind's wire type.
func appendNumber(dst []byte, kind protoreflect.Kind, bits uint64) []byte {
	switch kind {
	case protoreflect.Sint32Kind:
		return protowire.AppendVarint(dst, protowire.EncodeZigZag(int64(int32(bits))))
	case protoreflect.Sint64Kind:
		return protowire.AppendVarint(dst, protowire.EncodeZigZag(int64(bits)))
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return binary.LittleEndian.AppendUint32(dst, uint32(bits))
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return binary.LittleEndian.AppendUint64(dst, bits)
	case protoreflect.Int32Kind, protoreflect.EnumKind:
		return protowire.AppendVarint(dst, uint64(int64(int32(bits))))
	case protoreflect.Uint32Kind:
		return protowire.AppendVarint(dst, uint64(uint32(bits)))
	}
	return protowire.AppendVarint(dst, bits) // int64, uint64, bool
}

func parseInt(b []byte) int64 {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	n := int64(parseUint(b))
	if neg {
		return -n
	}
	return n
}

func parseUint(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + uint64(c-'0')
	}
	return n
}

// wireType is how kind travels.
func wireType(kind protoreflect.Kind) protowire.Type {
	switch kind {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	}
	return protowire.VarintType
}

// buildMessage compiles a plan message: its fields in the order
// protobuf-go's deterministic encoder writes them (by number, oneof
// members last), map entries by key, proto3 repeated scalars packed;
// every part without a hole is encoded now and merged with its neighbours.
func buildMessage(mv *plan.MessageValue, scope requestScope, nextID *uint32, rng hcl.Range) (*MessageTemplate, hcl.Diagnostics) {
	b := &messageBuilder{scope: scope, nextID: nextID, rng: rng}
	return b.message(mv), b.diags
}

// messageBuilder carries what every field's splice needs.
type messageBuilder struct {
	scope  requestScope
	nextID *uint32
	rng    hcl.Range
	diags  hcl.Diagnostics
}

func (b *messageBuilder) message(mv *plan.MessageValue) *MessageTemplate {
	m := &MessageTemplate{}
	fields := slices.Clone(mv.Fields)
	slices.SortStableFunc(fields, func(a, b plan.FieldValue) int { return fieldOrder(a.Desc, b.Desc) })
	for i := range fields {
		b.addField(m, &fields[i])
	}
	return m.fold()
}

func fieldOrder(x, y protoreflect.FieldDescriptor) int {
	inOneof := func(fd protoreflect.FieldDescriptor) bool {
		od := fd.ContainingOneof()
		return od != nil && !od.IsSynthetic()
	}
	if inOneof(x) != inOneof(y) {
		if inOneof(y) {
			return -1
		}
		return 1
	}
	if inOneof(x) && x.ContainingOneof() != y.ContainingOneof() {
		return x.ContainingOneof().Index() - y.ContainingOneof().Index()
	}
	return int(x.Number()) - int(y.Number())
}

func (b *messageBuilder) addField(m *MessageTemplate, f *plan.FieldValue) {
	fd := f.Desc
	switch {
	case fd.IsMap():
		entries := slices.Clone(f.List)
		slices.SortStableFunc(entries, func(a, b plan.FieldValue) int {
			return compareMapKeys(fd.MapKey(), a.Message.Fields[0].Scalar.Literal(), b.Message.Fields[0].Scalar.Literal())
		})
		for i := range entries {
			b.addSingular(m, &entries[i], false)
		}
	case fd.IsList() && fd.IsPacked():
		if len(f.List) == 0 {
			return
		}
		run := &MessageTemplate{}
		for i := range f.List {
			run.Parts = append(run.Parts, MessagePart{Kind: fd.Kind(), Value: b.scalar(&f.List[i])})
		}
		m.Parts = append(m.Parts, MessagePart{Tag: protowire.AppendTag(nil, fd.Number(), protowire.BytesType), Nested: run.fold()})
	case fd.IsList():
		for i := range f.List {
			b.addSingular(m, &f.List[i], false)
		}
	default:
		b.addSingular(m, f, !fd.HasPresence())
	}
}

// addSingular adds one value of a field with its tag: a nested message
// (a map entry's key and value are always written, as protobuf writes
// them), or a scalar.
func (b *messageBuilder) addSingular(m *MessageTemplate, f *plan.FieldValue, implicit bool) {
	fd := f.Desc
	if f.Message != nil {
		var nested *MessageTemplate
		if fd.IsMap() {
			nested = &MessageTemplate{}
			for i := range f.Message.Fields {
				b.addSingular(nested, &f.Message.Fields[i], false)
			}
			nested = nested.fold()
		} else {
			nested = b.message(f.Message)
		}
		m.Parts = append(m.Parts, MessagePart{Tag: protowire.AppendTag(nil, fd.Number(), protowire.BytesType), Nested: nested})
		return
	}
	kind := fd.Kind()
	m.Parts = append(m.Parts, MessagePart{Tag: protowire.AppendTag(nil, fd.Number(), wireType(kind)), Kind: kind,
		Value: b.scalar(f), Implicit: implicit})
}

func (b *messageBuilder) scalar(f *plan.FieldValue) Splice {
	sp, d := buildSplice("", f.Scalar, b.scope, b.nextID, b.rng)
	b.diags = append(b.diags, d...)
	return sp
}

// fold encodes every part without a hole now, merging runs of fixed
// bytes, so only what varies is left for Append.
func (m *MessageTemplate) fold() *MessageTemplate {
	out := &MessageTemplate{}
	var fixed []byte
	flush := func() {
		if fixed != nil {
			out.Parts = append(out.Parts, MessagePart{Fixed: fixed})
			fixed = nil
		}
	}
	for _, p := range m.Parts {
		if p.staticPart() {
			fixed = p.append(nonNil(fixed), &Values{})
			continue
		}
		flush()
		out.Parts = append(out.Parts, p)
	}
	flush()
	return out
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (p *MessagePart) staticPart() bool {
	switch {
	case p.Fixed != nil:
		return true
	case p.Nested != nil:
		return p.Nested.Static()
	}
	return p.Value.Static()
}

// compareMapKeys orders map keys as protobuf-go's deterministic encoder
// does: numbers by value, strings by bytes, false before true.
func compareMapKeys(fd protoreflect.FieldDescriptor, a, b string) int {
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BoolKind:
		if a < b {
			return -1
		} else if a > b {
			return 1
		}
		return 0
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		x, y := parseUint([]byte(a)), parseUint([]byte(b))
		return cmpOrder(x < y, x > y)
	}
	x, y := parseInt([]byte(a)), parseInt([]byte(b))
	return cmpOrder(x < y, x > y)
}

func cmpOrder(less, more bool) int {
	switch {
	case less:
		return -1
	case more:
		return 1
	}
	return 0
}
