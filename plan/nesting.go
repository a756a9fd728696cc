package plan

import (
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// HCL's parser and evaluator recurse once per level of nesting: a plan (or
// a -var value, or a -var-file) with 100,000 nested parentheses or
// template interpolations, or a million chained operators, overflows the
// Go stack, a fatal error that no recover catches and that exits with 2, the
// code of failed thresholds. So every source is measured before it is
// parsed, by a scanner that knows just enough of the syntax to skip
// strings, heredocs and comments, and refused with a located diagnostic
// past bounds no hand-written plan comes near.
const (
	// maxNesting bounds brackets, braces, parentheses and template
	// interpolations open at once.
	maxNesting = 100
	// maxOperators bounds the operators of one source outside strings;
	// each may add a level to an expression tree.
	maxOperators = 10_000
)

// scanFrame is one context the scanner is in.
type scanFrame struct {
	kind   byte // 'c' code, 's' quoted string, 'h' heredoc, 'j' JSON string
	depth  int  // nesting when the frame began: an interpolation ends at its '}'
	marker []byte
}

// checkNesting returns a diagnostic when src nests deeper than maxNesting
// or holds more than maxOperators operators; jsonSyntax selects HCL's JSON
// syntax, whose strings are templates.
func checkNesting(src []byte, filename string, jsonSyntax bool) *hcl.Diagnostic {
	s := nestScanner{src: src, line: 1, col: 1}
	top := byte('c')
	if jsonSyntax {
		top = 'J'
	}
	s.stack = []scanFrame{{kind: top}}
	if d := s.run(); d != nil {
		d.Subject = &hcl.Range{Filename: filename, Start: s.errPos, End: hcl.Pos{Line: s.errPos.Line, Column: s.errPos.Column + 1, Byte: s.errPos.Byte + 1}}
		return d
	}
	return nil
}

type nestScanner struct {
	src       []byte
	i         int
	line, col int
	depth     int
	ops       int
	stack     []scanFrame
	errPos    hcl.Pos
	lineStart bool
}

func (s *nestScanner) pos() hcl.Pos { return hcl.Pos{Line: s.line, Column: s.col, Byte: s.i} }

// advance moves past n bytes, keeping the line and column.
func (s *nestScanner) advance(n int) {
	for ; n > 0 && s.i < len(s.src); n-- {
		if s.src[s.i] == '\n' {
			s.line, s.col = s.line+1, 1
			s.i++
			continue
		}
		_, size := utf8.DecodeRune(s.src[s.i:])
		s.i += size
		s.col++
		n -= size - 1
	}
}

func (s *nestScanner) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

func (s *nestScanner) open() *hcl.Diagnostic {
	s.depth++
	if s.depth > maxNesting {
		s.errPos = s.pos()
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Nested too deeply",
			Detail: fmt.Sprintf("This opens more than %d brackets, braces, parentheses or template interpolations at once. "+
				"tressi refuses such nesting before parsing it (deeper still, it would exhaust the parser's stack). "+
				"Flatten the expression, or build the value in steps with variables and functions such as jsonencode.", maxNesting),
		}
	}
	return nil
}

func (s *nestScanner) operator() *hcl.Diagnostic {
	s.ops++
	if s.ops > maxOperators {
		s.errPos = s.pos()
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Expression too long",
			Detail: fmt.Sprintf("This source holds more than %d operators outside strings; each nests the expression one level deeper, "+
				"and tressi refuses such a source before parsing it (longer still, it would exhaust the parser's stack). "+
				"Compute the value outside the plan and pass it as a variable.", maxOperators),
		}
	}
	return nil
}

func (s *nestScanner) run() *hcl.Diagnostic {
	for s.i < len(s.src) {
		f := &s.stack[len(s.stack)-1]
		var d *hcl.Diagnostic
		switch f.kind {
		case 'c':
			d = s.code(f)
		case 'J':
			d = s.json()
		case 's', 'j':
			d = s.str(f)
		case 'h':
			d = s.heredoc(f)
		}
		if d != nil {
			return d
		}
	}
	return nil
}

func isIdent(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// code scans native syntax outside strings.
func (s *nestScanner) code(f *scanFrame) *hcl.Diagnostic {
	c := s.src[s.i]
	switch {
	case c == '"':
		s.stack = append(s.stack, scanFrame{kind: 's'})
	case c == '#' || c == '/' && s.peek(1) == '/':
		for s.i < len(s.src) && s.src[s.i] != '\n' {
			s.advance(1)
		}
		return nil
	case c == '/' && s.peek(1) == '*':
		s.advance(2)
		for s.i < len(s.src) && !(s.src[s.i] == '*' && s.peek(1) == '/') {
			s.advance(1)
		}
		s.advance(2)
		return nil
	case c == '<' && s.peek(1) == '<':
		if marker, n := heredocMarker(s.src[s.i:]); marker != nil {
			s.stack = append(s.stack, scanFrame{kind: 'h', marker: marker})
			s.advance(n)
			return nil
		}
		if d := s.operator(); d != nil {
			return d
		}
	case c == '(' || c == '[' || c == '{':
		if d := s.open(); d != nil {
			return d
		}
	case c == ')' || c == ']' || c == '}':
		s.depth--
		if c == '}' && len(s.stack) > 1 && s.depth == f.depth {
			s.stack = s.stack[:len(s.stack)-1] // the interpolation ends
		}
	case c == '!' || c == '?' || c == '+' || c == '*' || c == '/' || c == '%' || c == '<' || c == '>' ||
		c == '&' || c == '|' || c == '=' && s.peek(1) == '=' ||
		c == '-' && !(s.i > 0 && isIdent(s.src[s.i-1]) && s.src[s.i-1] != '-'):
		if d := s.operator(); d != nil {
			return d
		}
	}
	s.advance(1)
	return nil
}

// json scans HCL's JSON syntax outside strings.
func (s *nestScanner) json() *hcl.Diagnostic {
	switch s.src[s.i] {
	case '"':
		s.stack = append(s.stack, scanFrame{kind: 'j'})
	case '[', '{':
		if d := s.open(); d != nil {
			return d
		}
	case ']', '}':
		s.depth--
	}
	s.advance(1)
	return nil
}

// interpolation enters code at "${" or "%{" (not "$${", "%%{").
func (s *nestScanner) interpolation() (bool, *hcl.Diagnostic) {
	c := s.src[s.i]
	if (c == '$' || c == '%') && s.peek(1) == c && s.peek(2) == '{' {
		s.advance(3)
		return true, nil
	}
	if (c == '$' || c == '%') && s.peek(1) == '{' {
		if d := s.open(); d != nil {
			return true, d
		}
		s.stack = append(s.stack, scanFrame{kind: 'c', depth: s.depth - 1})
		s.advance(2)
		return true, nil
	}
	return false, nil
}

// str scans a quoted string (native or JSON), whose content is a template.
func (s *nestScanner) str(f *scanFrame) *hcl.Diagnostic {
	switch s.src[s.i] {
	case '\\':
		s.advance(2)
		return nil
	case '"':
		if s.i > 0 && f == &s.stack[len(s.stack)-1] {
			s.stack = s.stack[:len(s.stack)-1]
			s.advance(1)
			return nil
		}
	}
	if ok, d := s.interpolation(); ok || d != nil {
		return d
	}
	s.advance(1)
	return nil
}

// heredoc scans a heredoc's lines until one holds only its marker.
func (s *nestScanner) heredoc(f *scanFrame) *hcl.Diagnostic {
	if s.src[s.i] == '\n' {
		s.advance(1)
		j := s.i
		for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t') {
			j++
		}
		if rest := s.src[j:]; len(rest) >= len(f.marker) && string(rest[:len(f.marker)]) == string(f.marker) {
			if k := j + len(f.marker); k == len(s.src) || s.src[k] == '\n' || s.src[k] == '\r' {
				s.stack = s.stack[:len(s.stack)-1]
				s.advance(k - s.i)
			}
		}
		return nil
	}
	if ok, d := s.interpolation(); ok || d != nil {
		return d
	}
	s.advance(1)
	return nil
}

// heredocMarker reads "<<EOF" or "<<-EOF" up to the line's end and returns
// the marker and the bytes up to (not including) the newline.
func heredocMarker(b []byte) ([]byte, int) {
	i := 2
	if i < len(b) && b[i] == '-' {
		i++
	}
	start := i
	for i < len(b) && isIdent(b[i]) {
		i++
	}
	if i == start {
		return nil, 0
	}
	marker := b[start:i]
	for i < len(b) && b[i] != '\n' {
		if b[i] != '\r' && b[i] != ' ' && b[i] != '\t' {
			return nil, 0
		}
		i++
	}
	return marker, i
}
