package cnum

import (
	"math"
	"testing"
)

func TestNumbers(t *testing.T) {
	// Expected values printed by glibc atoi/strtoll/strtoull on x86_64.
	tests := []struct {
		in       string
		atoi     int
		strtoll  int64
		strtoull uint64
	}{
		{"123", 123, 123, 123},
		{" \t\n+42x", 42, 42, 42},
		{"\v\f\r9", 9, 9, 9},
		{"-7", -7, -7, math.MaxUint64 - 6},
		{"abc", 0, 0, 0},
		{"", 0, 0, 0},
		{" - 5", 0, 0, 0},
		{"+-5", 0, 0, 0},
		{"0x10", 0, 0, 0},
		{"2147483648", -2147483648, 2147483648, 2147483648},
		{"4294967297", 1, 4294967297, 4294967297},
		{"9223372036854775808", -1, math.MaxInt64, 9223372036854775808},
		{"-9223372036854775808", 0, math.MinInt64, 9223372036854775808},
		{"99999999999999999999", -1, math.MaxInt64, math.MaxUint64},
		{"-99999999999999999999", 0, math.MinInt64, math.MaxUint64},
		{"-1", -1, -1, math.MaxUint64},
		{"18446744073709551615", -1, math.MaxInt64, math.MaxUint64},
		{"18446744073709551616", -1, math.MaxInt64, math.MaxUint64},
		{"-18446744073709551615", 0, math.MinInt64, 1},
		{"-18446744073709551616", 0, math.MinInt64, math.MaxUint64},
	}
	for _, tt := range tests {
		if got := Atoi(tt.in); got != tt.atoi {
			t.Errorf("atoi(%q) = %d, want %d", tt.in, got, tt.atoi)
		}
		if got := Strtoll(tt.in); got != tt.strtoll {
			t.Errorf("strtoll(%q) = %d, want %d", tt.in, got, tt.strtoll)
		}
		if got := Strtoull(tt.in); got != tt.strtoull {
			t.Errorf("strtoull(%q) = %d, want %d", tt.in, got, tt.strtoull)
		}
	}
}
