package cnum

import (
	"strconv"
	"strings"
)

// ParseLongLong parses s as Redis's string2ll does: an optional minus,
// no plus sign, no leading zeros, no spaces, within int64. Redis reads
// integer command arguments this way; ok is false for anything else.
func ParseLongLong(s string) (n int64, ok bool) {
	if s == "0" {
		return 0, true
	}
	d := strings.TrimPrefix(s, "-")
	if d == "" || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}
