package monitor

import "math"

// C number parsing with glibc semantics, shared by the INFO and hello
// parsers so that garbage is read exactly as Redis reads it.

// isCSpace reports whether c is white space for C isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// cScan reads what C strtol-family functions read in base 10: leading
// white space, one optional sign, then decimal digits. mag is the magnitude,
// saturated at math.MaxUint64, and over reports that saturation.
func cScan(s string) (neg bool, mag uint64, over bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	for ; i < len(s) && isASCIIDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if over || mag > (math.MaxUint64-d)/10 {
			over, mag = true, math.MaxUint64
			continue
		}
		mag = mag*10 + d
	}
	return neg, mag, over
}

// cStrtoll is glibc strtoll(s, NULL, 10): saturates at the int64 bounds.
func cStrtoll(s string) int64 {
	neg, mag, _ := cScan(s)
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

// cAtoi is glibc atoi on a 64-bit platform: (int)strtol(s, NULL, 10),
// keeping the low 32 bits of the saturated long as gcc does.
func cAtoi(s string) int {
	return int(int32(cStrtoll(s)))
}

// cStrtoull is glibc strtoull(s, NULL, 10): saturates at MaxUint64 and
// negates (mod 2^64) when a minus sign is present.
func cStrtoull(s string) uint64 {
	neg, mag, over := cScan(s)
	if over {
		return math.MaxUint64
	}
	if neg {
		return -mag
	}
	return mag
}
