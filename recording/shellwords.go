package recording

import (
	"fmt"
	"strconv"
	"strings"
)

// shellWords splits a command line as a POSIX shell would for a single
// simple command, with the quoting that "Copy as cURL" writes: single
// quotes, double quotes (\ escapes " \ $ ` and newline), $'...' ANSI-C
// strings, backslash escapes and line continuations. Expansions ($VAR,
// globbing, substitutions) are not performed: an unquoted $ is kept as is.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			i++
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("the command ends in a lone backslash")
			}
			if s[i+1] == '\n' { // a line continuation
				i += 2
				continue
			}
			if s[i+1] == '\r' && i+2 < len(s) && s[i+2] == '\n' {
				i += 3
				continue
			}
			cur.WriteByte(s[i+1])
			inWord = true
			i += 2
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("a single quote at byte %d is never closed", i)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case c == '"':
			n, err := doubleQuoted(s[i+1:], &cur)
			if err != nil {
				return nil, fmt.Errorf("at byte %d: %v", i, err)
			}
			inWord = true
			i += n + 1
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			n, err := ansiQuoted(s[i+2:], &cur)
			if err != nil {
				return nil, fmt.Errorf("at byte %d: %v", i, err)
			}
			inWord = true
			i += n + 2
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// doubleQuoted reads a "..." string's body (s starts after the opening
// quote) into b and returns how many bytes it took, closing quote included.
func doubleQuoted(s string, b *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
				if s[i+1] != '\n' {
					b.WriteByte(s[i+1])
				}
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return 0, fmt.Errorf("a double quote is never closed")
}

// ansiQuoted reads a $'...' string's body (s starts after the quote) into
// b: bash's escapes \n \r \t \\ \' \" \xHH \uHHHH \UHHHHHHHH \0NNN and
// the rest of C's.
func ansiQuoted(s string, b *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			return i + 1, nil
		}
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U', '0', '1', '2', '3', '4', '5', '6', '7':
			base, maxLen := 16, map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			start := i + 1
			if maxLen == 0 { // octal: up to three digits, this one included
				base, maxLen, start = 8, 3, i
			}
			end := start
			for end < len(s) && end-start < maxLen && isDigitIn(s[end], base) {
				end++
			}
			if end == start {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			v, _ := strconv.ParseUint(s[start:end], base, 32)
			if e == 'u' || e == 'U' {
				b.WriteRune(rune(v))
			} else {
				b.WriteByte(byte(v))
			}
			i = end - 1
		default: // \\ \' \" \? and anything else: the character itself
			b.WriteByte(e)
		}
	}
	return 0, fmt.Errorf("a $' string is never closed")
}

func isDigitIn(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '7':
		return true
	case c == '8' || c == '9':
		return base == 16
	case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		return base == 16
	}
	return false
}
