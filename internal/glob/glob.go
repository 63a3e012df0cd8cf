// Package glob matches strings against Redis-style glob patterns, with the
// semantics of Redis's stringmatchlen: `*`, `?`, `[abc]`, `[^a]`, `[a-z]` and
// `\` escapes. It is used by PSUBSCRIBE, SENTINEL RESET and CONFIG GET.
package glob

// Match reports whether s matches pattern. With nocase, letters compare
// case-insensitively.
func Match(pattern, s string, nocase bool) bool {
	var exhausted bool
	return match(pattern, s, nocase, 0, &exhausted)
}

// maxNesting bounds the recursion on `*`, as Redis does, so a hostile
// pattern cannot exhaust the stack.
const maxNesting = 1000

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// match matches p against s. exhausted is shared by the whole match: it
// is set once the rest of the pattern after some `*` matched nowhere in
// the rest of the string; then no earlier `*` can help by matching more
// (that would only start the rest later), and every `*` gives up at once.
// Without it a pattern such as "*?*?*?0" takes exponential time (Redis
// 7.0.9 added the same cut-off, CVE-2022-36021).
func match(p, s string, nocase bool, depth int, exhausted *bool) bool {
	if depth > maxNesting {
		return false
	}
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if match(p[1:], s[i:], nocase, depth+1, exhausted) {
					return true
				}
				if *exhausted {
					return false
				}
			}
			*exhausted = true
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
			p = p[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			matched := false
			for {
				if len(p) == 0 {
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						matched = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					start, end := p[0], p[2]
					c := s[0]
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = lower(start), lower(end), lower(c)
					}
					p = p[2:]
					if c >= start && c <= end {
						matched = true
					}
				} else if nocase {
					if lower(p[0]) == lower(s[0]) {
						matched = true
					}
				} else if p[0] == s[0] {
					matched = true
				}
				p = p[1:]
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			s = s[1:]
			if len(p) > 0 {
				p = p[1:] // skip ']'
			}
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(s) == 0 {
				return false
			}
			if nocase {
				if lower(p[0]) != lower(s[0]) {
					return false
				}
			} else if p[0] != s[0] {
				return false
			}
			s = s[1:]
			p = p[1:]
		}
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			return len(p) == 0
		}
	}
	return len(p) == 0 && len(s) == 0
}
