// Package jsonpath parses the JSON paths of the plan language: a dotted
// path with [index] steps, such as "data.items[0].id". Captures, WebSocket
// awaits and response checks read them; the plan validates them with the
// same parser, so a path the plan accepts is one the engines can follow.
package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
)

// Step is one step of a path: an object key, or an array index.
type Step struct {
	Key   string
	Index int // >= 0: an array index, and Key is unused; -1 for a key
}

// Parse parses a dotted path with [index] steps, such as
// "data.items[0].id"; a leading "$." is allowed. The error says how to
// write one.
func Parse(s string) ([]Step, error) {
	hint := fmt.Sprintf("json(%q): write a path such as \"data.token\" or \"items[0].id\"", s)
	rest := strings.TrimPrefix(strings.TrimPrefix(s, "$"), ".")
	if rest == "" {
		return nil, fmt.Errorf("%s", hint)
	}
	var path []Step
	for rest != "" {
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("%s: unclosed [", hint)
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s: [%s] is not an array index", hint, rest[1:end])
			}
			path = append(path, Step{Index: n})
			rest = rest[end+1:]
		} else {
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("%s: empty key", hint)
			}
			path = append(path, Step{Key: rest[:end], Index: -1})
			rest = rest[end:]
		}
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" || rest[0] == '.' || rest[0] == '[' {
				return nil, fmt.Errorf("%s: empty key", hint)
			}
		}
	}
	return path, nil
}
