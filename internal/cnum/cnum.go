// Package cnum reads decimal numbers the way Redis's C code does, so that
// garbage is read exactly as Redis reads it: glibc atoi, strtoll and
// strtoull, as the INFO and hello parsers use them, and Redis's strict
// string2ll, as command arguments are read. It is a pure leaf: it imports
// only the standard library.
package cnum

import "math"

// isCSpace reports whether c is white space for C isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// isDigit reports whether c is an ASCII decimal digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scan reads what C strtol-family functions read in base 10: leading
// white space, one optional sign, then decimal digits. mag is the magnitude,
// saturated at math.MaxUint64, and over reports that saturation.
func scan(s string) (neg bool, mag uint64, over bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if over || mag > (math.MaxUint64-d)/10 {
			over, mag = true, math.MaxUint64
			continue
		}
		mag = mag*10 + d
	}
	return neg, mag, over
}

// Strtoll is glibc strtoll(s, NULL, 10): saturates at the int64 bounds.
func Strtoll(s string) int64 {
	neg, mag, _ := scan(s)
	if neg {
		if mag > 1<<63 {
			return math.MinInt64
		}
		return int64(-mag) // -(1<<63) wraps to MinInt64, as wanted
	}
	if mag > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(mag)
}

// Atoi is glibc atoi on a 64-bit platform: (int)strtol(s, NULL, 10),
// keeping the low 32 bits of the saturated long as gcc does.
func Atoi(s string) int {
	return int(int32(Strtoll(s)))
}

// Strtoull is glibc strtoull(s, NULL, 10): saturates at MaxUint64 and
// negates (mod 2^64) when a minus sign is present.
func Strtoull(s string) uint64 {
	neg, mag, over := scan(s)
	if over {
		return math.MaxUint64
	}
	if neg {
		return -mag
	}
	return mag
}
