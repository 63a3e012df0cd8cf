package cnum

import "testing"

func TestParseLongLong(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"12", 12, true}, {"-7", -7, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false}, {"", 0, false}, {"-", 0, false},
		{"-0", 0, false}, {"01", 0, false}, {"+1", 0, false}, {" 1", 0, false},
		{"1 ", 0, false}, {"1x", 0, false}, {"0x10", 0, false},
	} {
		got, ok := ParseLongLong(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseLongLong(%q) = %d, %v", tt.in, got, ok)
		}
	}
}
