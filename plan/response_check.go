package plan

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/tressi/tressi/internal/jsonpath"
)

// Check is one `check "name" { ... }` block of an HTTP request: a test of
// its response, which fails the row (`check_failed`) when it does not
// hold. It reads one subject (the body, the value at a JSON path, or a
// header) and tests it one way.
type Check struct {
	Name    string
	Subject CheckSubject
	// Path is the JSON path (CheckJSON) or the header name (CheckHeader).
	Path string
	Op   CheckOp
	// Value is what CheckEquals compares with (a string's text, a
	// number's digits, true or false), the text CheckContains looks for,
	// or CheckRegex's expression.
	Value string
	// Exists is CheckExists's expectation: present (true) or absent.
	Exists bool
	// MinSize and MaxSize bound the body's size in bytes (CheckSize);
	// -1 where unset.
	MinSize, MaxSize int64
	DeclRange        hcl.Range
}

// CheckSubject is what a check reads of a response; the values are those
// .tplan files hold.
type CheckSubject uint8

// Check subjects.
const (
	CheckBody   CheckSubject = iota // the body, as it streams in
	CheckJSON                       // json = "PATH": the value at a JSON path of the body
	CheckHeader                     // header = "NAME": a response header's first value
)

// CheckOp is how a check tests its subject; the values are those .tplan
// files hold.
type CheckOp uint8

// Check operations.
const (
	CheckEquals   CheckOp = iota + 1 // equals = VALUE
	CheckRegex                       // regex = "RE": matches somewhere in it
	CheckContains                    // contains = "TEXT"
	CheckExists                      // exists = true|false
	CheckSize                        // min_size / max_size on the body
)

var checkSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "json"},
		{Name: "header"},
		{Name: "equals"},
		{Name: "regex"},
		{Name: "contains"},
		{Name: "exists"},
		{Name: "min_size"},
		{Name: "max_size"},
	},
}

// checkOps are the attributes that say how a check tests, one per check.
var checkOps = []struct {
	name string
	op   CheckOp
}{{"equals", CheckEquals}, {"regex", CheckRegex}, {"contains", CheckContains}, {"exists", CheckExists}}

const checkExample = "such as check \"ok\" { json = \"status\"  equals = \"ok\" }, check \"greets\" { contains = \"hello\" } or check \"small\" { max_size = 4096 }"

// decodeChecks reads a request's check blocks; names are unique per request.
func (l *loader) decodeChecks(blocks hcl.Blocks, r *Request) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	for _, b := range blocks {
		if b.Type != "check" {
			continue
		}
		name := b.Labels[0]
		if first, dup := seen[name]; dup {
			diags = append(diags, duplicate("check", name, b.DefRange, first))
			continue
		}
		seen[name] = b.DefRange
		if !hclsyntax.ValidIdentifier(name) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid check name",
				Detail:  fmt.Sprintf("check %q: a check's name must be an identifier (letters, digits, _ and -, starting with a letter), such as \"has_token\"; reports and results name it.", name),
				Subject: b.LabelRanges[0].Ptr()})
			continue
		}
		c, d := l.decodeCheck(b)
		diags = append(diags, d...)
		if !d.HasErrors() {
			r.Checks = append(r.Checks, c)
		}
	}
	if len(r.Checks) > MaxChecks {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Too many checks",
			Detail:  fmt.Sprintf("A request may have at most %d check blocks (this one has %d): merge some, such as several contains into one regex.", MaxChecks, len(r.Checks)),
			Subject: r.Checks[MaxChecks].DeclRange.Ptr()})
	}
	return diags
}

// MaxChecks bounds a request's checks: the engine tracks them in one
// machine word.
const MaxChecks = 64

func (l *loader) decodeCheck(b *hcl.Block) (Check, hcl.Diagnostics) {
	content, diags := b.Body.Content(checkSchema)
	c := Check{Name: b.Labels[0], MinSize: -1, MaxSize: -1, DeclRange: b.DefRange}
	if diags.HasErrors() {
		return c, diags
	}
	attrs := content.Attributes
	what := fmt.Sprintf("check %q", c.Name)
	path, jsonAttr, d := l.stringAttr(attrs, "json")
	diags = append(diags, d...)
	header, headerAttr, d := l.stringAttr(attrs, "header")
	diags = append(diags, d...)
	switch {
	case jsonAttr != nil && headerAttr != nil:
		return c, append(diags, attrError(headerAttr, "Conflicting check subjects", what+" reads both json and header; a check tests one thing: split it into two checks."))
	case jsonAttr != nil:
		c.Subject, c.Path = CheckJSON, path
		if _, err := jsonpath.Parse(path); err != nil {
			diags = append(diags, attrError(jsonAttr, "Invalid JSON path", fmt.Sprintf("%s: %v.", what, err)))
		}
	case headerAttr != nil:
		c.Subject, c.Path = CheckHeader, header
		if !isToken(header) {
			diags = append(diags, attrError(headerAttr, "Invalid header name", fmt.Sprintf("%s: %q is not an HTTP header name: use letters, digits and - only.", what, header)))
		}
	}
	diags = append(diags, l.checkOp(attrs, b, &c)...)
	diags = append(diags, l.checkSize(attrs, &c)...)
	if c.Op == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty check",
			Detail: what + " tests nothing: give it one of equals, regex, contains or exists (with json or header to test a value rather than the body), or min_size/max_size, " + checkExample + ".", Subject: b.DefRange.Ptr()})
	}
	return c, diags
}

// checkOp reads the one attribute saying how c tests its subject.
func (l *loader) checkOp(attrs hcl.Attributes, b *hcl.Block, c *Check) hcl.Diagnostics {
	var diags hcl.Diagnostics
	what := fmt.Sprintf("check %q", c.Name)
	var first *hcl.Attribute
	for _, o := range checkOps {
		attr := attrs[o.name]
		if attr == nil {
			continue
		}
		if first != nil {
			diags = append(diags, attrError(attr, "Conflicting check tests", fmt.Sprintf("%s sets both %s and %s; a check tests one way: split it into two checks.", what, first.Name, attr.Name)))
			continue
		}
		first, c.Op = attr, o.op
		if l.sensitive(attr) {
			diags = append(diags, attrError(attr, "Sensitive value in a check", what+": a check's value is written in the .tplan and shown in reports; test a value that is not secret (a sensitive variable's value stays out of every file)."))
			continue
		}
		switch o.op {
		case CheckEquals:
			v, d := l.eval(attr.Expr, scope{what: what + " equals"})
			diags = append(diags, d...)
			if d.HasErrors() || !v.IsWhollyKnown() {
				continue
			}
			v, _ = v.UnmarkDeep()
			text, ok := matchText(v)
			if !ok {
				diags = append(diags, attrError(attr, "Invalid equals", what+": equals must be a string, number or bool, such as equals = \"ok\" or equals = 42."))
			}
			c.Value = text
		case CheckExists:
			v, set, d := l.boolAttr(attrs, "exists")
			diags = append(diags, d...)
			c.Exists = v || !set
		default:
			s, _, d := l.stringAttr(attrs, o.name)
			diags = append(diags, d...)
			c.Value = s
			if o.op == CheckRegex {
				if _, err := regexp.Compile(s); err != nil {
					diags = append(diags, attrError(attr, "Invalid regex", fmt.Sprintf("%s: regex is not a valid regular expression: %v.", what, err)))
				}
			}
			if o.op == CheckContains && s == "" {
				diags = append(diags, attrError(attr, "Invalid contains", what+": contains needs the text to look for; an empty text is in every body."))
			}
		}
	}
	if c.Op == CheckExists && c.Subject == CheckBody {
		diags = append(diags, attrError(first, "exists needs a subject", what+": exists tests a JSON path or a header: add json = \"PATH\" or header = \"NAME\" (a body always exists; test its size with min_size)."))
	}
	return diags
}

// checkSize reads min_size and max_size, which test the body alone.
func (l *loader) checkSize(attrs hcl.Attributes, c *Check) hcl.Diagnostics {
	var diags hcl.Diagnostics
	what := fmt.Sprintf("check %q", c.Name)
	for _, name := range []string{"min_size", "max_size"} {
		n, attr, d := l.intAttr(attrs, name)
		diags = append(diags, d...)
		if attr == nil {
			continue
		}
		switch {
		case n < 0:
			diags = append(diags, attrError(attr, "Invalid "+name, fmt.Sprintf("%s: %s is a size in bytes, >= 0 (got %d).", what, name, n)))
		case c.Subject != CheckBody:
			diags = append(diags, attrError(attr, "Size of a value", fmt.Sprintf("%s: %s tests the body's size; leave out json and header, or make it a check of its own.", what, name)))
		case c.Op != 0 && c.Op != CheckSize:
			diags = append(diags, attrError(attr, "Conflicting check tests", fmt.Sprintf("%s tests the body both by its text and by %s: split it into two checks.", what, name)))
		default:
			c.Op = CheckSize
			if name == "min_size" {
				c.MinSize = n
			} else {
				c.MaxSize = n
			}
		}
	}
	if c.Op == CheckSize && c.MinSize >= 0 && c.MaxSize >= 0 && c.MinSize > c.MaxSize {
		diags = append(diags, attrError(attrs["max_size"], "Invalid max_size", fmt.Sprintf("%s: max_size %d is below min_size %d, so no body could pass.", what, c.MaxSize, c.MinSize)))
	}
	return diags
}
