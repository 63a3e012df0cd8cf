package config

import (
	"math"
	"testing"
)

func TestAtoi(t *testing.T) {
	tests := map[string]int{
		"0": 0, "42": 42, "-7": -7, "+5": 5, "  12": 12, "12abc": 12, "abc": 0, "": 0,
		"2147483647": math.MaxInt32, "2147483648": math.MinInt32, "99999999999": 1215752191,
		"99999999999999999999": -1, "007": 7, "- 5": 0, "--5": 0,
	}
	for in, want := range tests {
		if got := atoi(in); got != want {
			t.Errorf("atoi(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestStrtoull10(t *testing.T) {
	tests := map[string]uint64{
		"0": 0, "18446744073709551615": math.MaxUint64, "18446744073709551616": math.MaxUint64,
		"-1": math.MaxUint64, "12x": 12, "x": 0, " 3": 3,
	}
	for in, want := range tests {
		if got := strtoull10(in); got != want {
			t.Errorf("strtoull10(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestString2ll(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"123", 123, true}, {"-123", -123, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"", 0, false}, {"-", 0, false}, {"01", 0, false},
		{"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1a", 0, false}, {"-0", 0, false},
	}
	for _, tt := range tests {
		got, ok := string2ll(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("string2ll(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMemtoull(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"100", 100, true}, {"1k", 1000, true}, {"1kb", 1024, true}, {"2MB", 2 << 20, true},
		{"1g", 1e9, true}, {"1Gb", 1 << 30, true}, {"5b", 5, true}, {"-1", 0, false}, {"1x", 0, false},
		{"1.5mb", 0, false},
	}
	for _, tt := range tests {
		got, ok := memtoull(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("memtoull(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCanonicalHost(t *testing.T) {
	tests := []struct {
		in      string
		resolve bool
		want    string
		ok      bool
	}{
		{"127.0.0.1", false, "127.0.0.1", true},
		{"127.1", false, "127.0.0.1", true},
		{"10.1.2", false, "10.1.0.2", true},
		{"0x7f.0.0.01", false, "127.0.0.1", true},
		{"2130706433", false, "127.0.0.1", true},
		{"::1", false, "::1", true},
		{"0:0:0:0:0:0:0:1", false, "::1", true},
		{"2001:DB8::1", false, "2001:db8::1", true},
		{"localhost", false, "", false},
		{"256.0.0.1", false, "", false},
		{"1.2.3.4.5", false, "", false},
		{"", false, "", false},
		{"", true, "", false},
		{"localhost", true, "localhost", true},
		{"127.1", true, "127.0.0.1", true},
	}
	for _, tt := range tests {
		got, ok := canonicalHost(tt.in, tt.resolve)
		if got != tt.want || ok != tt.ok {
			t.Errorf("canonicalHost(%q, %v) = %q, %v; want %q, %v", tt.in, tt.resolve, got, ok, tt.want, tt.ok)
		}
	}
}
