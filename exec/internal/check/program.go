// Package check runs a request's check blocks on its response as it
// streams in: a Program is the checks made ready once per run (regexes
// compiled, paths parsed), a Matcher one response's run of it, fed the
// head and then the body piece by piece, never holding the body whole.
package check

import (
	"fmt"
	"regexp"
	"regexp/syntax"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/internal/jsonpath"
	"github.com/tressi/tressi/plan"
)

// Window is how much of the body a body regex sees at once: a match up to
// this long is found wherever it lies in the body; a longer one may be
// missed. It also bounds a JSON value a check compares.
const Window = 64 << 10

// maxPath bounds a JSON path's steps, so the tokenizer's levels are a
// fixed array.
const maxPath = 32

// Program is a request's checks, compiled; shared read-only by every
// matcher that runs it.
type Program struct {
	checks []prepared
	// Masks of the checks by what they read (bit i: checks[i]).
	json, header, contains, regex, size uint64
	// pathLen[n] are the json checks whose path has n steps.
	pathLen [maxPath + 1]uint64
	// longest is the longest body contains text, for the matcher's carry.
	longest int
}

type prepared struct {
	compile.Check
	path       []jsonpath.Step
	re         *regexp.Regexp
	start, end bool // a body regex anchored to the body's start or end
}

// New compiles checks; nil when there are none. The error names the check.
func New(checks []compile.Check) (*Program, error) {
	if len(checks) == 0 {
		return nil, nil
	}
	if len(checks) > plan.MaxChecks {
		return nil, fmt.Errorf("%d checks on one request, at most %d", len(checks), plan.MaxChecks)
	}
	p := &Program{}
	for i, c := range checks {
		pc := prepared{Check: c}
		bit := uint64(1) << i
		var err error
		switch c.Subject {
		case plan.CheckJSON:
			pc.path, err = jsonpath.Parse(c.Path)
			if err == nil && len(pc.path) > maxPath {
				err = fmt.Errorf("json %q has %d steps, at most %d", c.Path, len(pc.path), maxPath)
			}
			if err == nil {
				p.json |= bit
				p.pathLen[len(pc.path)] |= bit
			}
		case plan.CheckHeader:
			p.header |= bit
		case plan.CheckBody:
			switch c.Op {
			case plan.CheckContains:
				p.contains |= bit
				p.longest = max(p.longest, len(c.Value))
			case plan.CheckRegex:
				p.regex |= bit
			case plan.CheckSize:
				p.size |= bit
			default:
				err = fmt.Errorf("a body check cannot test %d", c.Op)
			}
		default:
			err = fmt.Errorf("unknown subject %d; recompile the plan with this tressi", c.Subject)
		}
		if err == nil && c.Op == plan.CheckRegex {
			pc.re, err = regexp.Compile(c.Value)
			if err == nil && c.Subject == plan.CheckBody {
				pc.start, pc.end = anchors(c.Value)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("check %q: %w", c.Name, err)
		}
		p.checks = append(p.checks, pc)
	}
	return p, nil
}

// ReadsHead says whether the matcher needs the response's header fields.
func (p *Program) ReadsHead() bool { return p != nil && p.header != 0 }

// Headers calls f with each header name a check reads, and its check's
// index; engines that look headers up by name (fasthttp) feed Field so.
func (p *Program) Headers(f func(i int, name string)) {
	for i := range p.checks {
		if p.header&(1<<i) != 0 {
			f(i, p.checks[i].Path)
		}
	}
}

// Len is the number of checks.
func (p *Program) Len() int {
	if p == nil {
		return 0
	}
	return len(p.checks)
}

// Name is check i's name.
func (p *Program) Name(i int) string { return p.checks[i].Name }

// anchors reports whether a regex holds a begin-of-text or end-of-text
// assertion (^ and $ outside multi-line mode, \A, \z).
func anchors(expr string) (start, end bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false, false
	}
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpBeginText:
			start = true
		case syntax.OpEndText:
			end = true
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return start, end
}
