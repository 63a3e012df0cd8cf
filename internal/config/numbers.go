package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// This file holds the C number parsers whose exact leniency Redis' config
// parsing depends on.

// cPrefix skips C white space and an optional sign, as strtol does, and
// returns the index of the first digit and whether the sign was '-'.
func cPrefix(s string) (i int, neg bool) {
	for i < len(s) && splitargs.IsSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	return i, neg
}

// cDigits reads the digits of s from i in base 8 or 10 and returns their
// magnitude, whether it overflowed 64 bits and the index after them.
func cDigits(s string, i int, base uint64) (v uint64, overflow bool, end int) {
	for i < len(s) && s[i] >= '0' && s[i] < '0'+byte(base) {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/base {
			overflow = true
		} else if !overflow {
			v = v*base + d
		}
		i++
	}
	return v, overflow, i
}

// cStrtoull parses like C's strtoull(s, &end, base) for base 8 or 10:
// leading white space, an optional sign (a minus negates modulo 2^64),
// then digits; overflow saturates to MaxUint64. It returns the value, the
// unparsed rest and whether any digit was consumed.
func cStrtoull(s string, base uint64) (v uint64, rest string, any bool) {
	i, neg := cPrefix(s)
	v, overflow, end := cDigits(s, i, base)
	if end == i {
		return 0, s, false
	}
	switch {
	case overflow:
		v = math.MaxUint64
	case neg:
		v = -v
	}
	return v, s[end:], true
}

// cStrtoll parses like C's strtoll(s, &end, base): as cStrtoull but signed,
// saturating to MinInt64/MaxInt64 on overflow.
func cStrtoll(s string, base uint64) (v int64, rest string, any bool) {
	i, neg := cPrefix(s)
	u, overflow, end := cDigits(s, i, base)
	if end == i {
		return 0, s, false
	}
	switch {
	case !neg && (overflow || u > math.MaxInt64):
		v = math.MaxInt64
	case neg && (overflow || u > 1<<63):
		v = math.MinInt64
	case neg:
		v = int64(-u)
	default:
		v = int64(u)
	}
	return v, s[end:], true
}

// atoi behaves like glibc's atoi: strtol's lenient prefix parse (garbage
// reads as 0, trailing garbage is ignored, overflow saturates) truncated to
// a 32-bit int.
func atoi(s string) int {
	v, _, _ := cStrtoll(s, 10)
	return int(int32(v))
}

// strtoull10 is strtoull(s, NULL, 10), the parser Redis uses for epochs.
func strtoull10(s string) uint64 {
	v, _, _ := cStrtoull(s, 10)
	return v
}

// string2ll is Redis' strict integer parser: an optional '-', no leading
// zeros (except "0" itself), no spaces or '+', no overflow.
func string2ll(s string) (int64, bool) {
	if len(s) == 0 || len(s) >= 21 {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	p := s
	neg := false
	if p[0] == '-' {
		neg = true
		p = p[1:]
		if p == "" {
			return 0, false
		}
	}
	if p[0] < '1' || p[0] > '9' {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// memtoull is Redis' memory-size parser: digits followed by an optional
// unit (b, k, kb, m, mb, g, gb; case-insensitive; k/m/g are powers of 1000,
// kb/mb/gb powers of 1024). ok is false on a malformed value.
func memtoull(s string) (uint64, bool) {
	if strings.HasPrefix(s, "-") {
		return 0, false
	}
	u := 0
	for u < len(s) && s[u] >= '0' && s[u] <= '9' {
		u++
	}
	var mul uint64
	switch strings.ToLower(s[u:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if u >= 128 {
		return 0, false
	}
	v, rest, _ := cStrtoull(s[:u], 10)
	if rest != "" {
		return 0, false
	}
	return v * mul, true
}

// string2d is Redis' strict float parser: the whole string must be a number,
// with no leading or trailing white space, and not NaN.
func string2d(s string) (float64, bool) {
	if s == "" || splitargs.IsSpace(s[0]) || splitargs.IsSpace(s[len(s)-1]) || strings.Contains(s, "_") {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	if math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
