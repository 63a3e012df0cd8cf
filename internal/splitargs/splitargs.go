// Package splitargs splits a line into arguments with the rules of Redis's
// sdssplitargs (config files, ACL selectors) and quotes strings back the
// way sdscatrepr does, so that Split(Repr(s)) is exactly s.
package splitargs

import (
	"errors"
	"strings"
)

// ErrUnbalancedQuotes is returned by Split when a quoted argument is not
// terminated, or a closing quote is followed by something other than a
// space. The text is the message Redis prints for such a line.
var ErrUnbalancedQuotes = errors.New("Unbalanced quotes in configuration line")

// Split splits one configuration line into arguments with the rules of
// Redis' sdssplitargs: arguments are separated by white space; an argument
// may be "double quoted" (escapes \n \r \t \b \a \xHH and \<any char>) or
// 'single quoted' (only \' is an escape); a closing quote must be followed by
// white space or the end of the line. A NUL byte ends the line, as it does in
// C. The result is never nil when err is nil.
func Split(line string) ([]string, error) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	n := len(line)
	at := func(i int) byte {
		if i < n {
			return line[i]
		}
		return 0
	}
	out := []string{}
	p := 0
	for {
		for p < n && IsSpace(line[p]) {
			p++
		}
		if p >= n {
			return out, nil
		}
		var cur []byte
		inq, insq, done := false, false, false
		for !done {
			c := at(p)
			switch {
			case inq:
				switch {
				case c == '\\' && at(p+1) == 'x' && isHexDigit(at(p+2)) && isHexDigit(at(p+3)):
					cur = append(cur, hexValue(at(p+2))<<4|hexValue(at(p+3)))
					p += 3
				case c == '\\' && at(p+1) != 0:
					p++
					cur = append(cur, unescape(at(p)))
				case c == '"':
					if at(p+1) != 0 && !IsSpace(at(p+1)) {
						return nil, ErrUnbalancedQuotes
					}
					done = true
				case c == 0:
					return nil, ErrUnbalancedQuotes
				default:
					cur = append(cur, c)
				}
			case insq:
				switch {
				case c == '\\' && at(p+1) == '\'':
					p++
					cur = append(cur, '\'')
				case c == '\'':
					if at(p+1) != 0 && !IsSpace(at(p+1)) {
						return nil, ErrUnbalancedQuotes
					}
					done = true
				case c == 0:
					return nil, ErrUnbalancedQuotes
				default:
					cur = append(cur, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, c)
				}
			}
			if at(p) != 0 {
				p++
			}
		}
		out = append(out, string(cur))
	}
}

// unescape maps the character after a backslash inside double quotes to the
// byte it stands for.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}

// IsSpace reports whether c is white space for C's isspace in the C locale,
// the separators of Split.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHexDigit(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexValue(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// Repr returns s as a double-quoted string the way Redis' sdscatrepr writes
// it: backslash and double quote are escaped, \n \r \t \a \b use their short
// escapes, other non-printable bytes become \xHH. Split(Repr(s)) gives
// back exactly s.
func Repr(s string) string {
	const hexdigits = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c <= 0x7e {
				b.WriteByte(c)
			} else {
				b.WriteString(`\x`)
				b.WriteByte(hexdigits[c>>4])
				b.WriteByte(hexdigits[c&0xf])
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Quote returns s unchanged when Split reads it back as one argument
// equal to s, and Repr(s) otherwise (empty strings, white space, quotes,
// backslashes and non-printable bytes).
func Quote(s string) string {
	if s == "" {
		return Repr(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' || c == '\\' {
			return Repr(s)
		}
	}
	return s
}
