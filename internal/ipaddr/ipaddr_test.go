package ipaddr

import "testing"

// TestCanonical pins the forms getaddrinfo(AI_NUMERICHOST) accepts and the
// text inet_ntop gives back; redis-sentinel 7.0.15 shows the same
// addresses for Sentinels announcing "127.1", "::ffff:1.2.3.4" and
// "fe80::1%lo" in hellos.
func TestCanonical(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"127.0.0.1", "127.0.0.1", true},
		{"127.1", "127.0.0.1", true},
		{"0", "0.0.0.0", true},
		{"0x7f.1", "127.0.0.1", true},
		{"010.0.0.1", "8.0.0.1", true},
		{"1.2.3.256", "", false},
		{"1.2.65535", "1.2.255.255", true},
		{"4294967295", "255.255.255.255", true},
		{"4294967296", "", false},
		{"1.2.3.4.5", "", false},
		{"08", "", false},
		{"", "", false},
		{"host.example", "", false},
		{"::1", "::1", true},
		{"::FFFF:1.2.3.4", "::ffff:1.2.3.4", true},
		{"fe80::1%lo", "fe80::1", true},
		{"2001:DB8:0:0:0:0:0:1", "2001:db8::1", true},
		{"1.2.3.4:80", "", false},
		{"[::1]", "", false},
	}
	for _, tt := range tests {
		got, ok := Canonical(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Canonical(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestCanonicalAllocatesNothing: a canonical IPv4 address, which nearly
// every hello and reply carries, is checked without an allocation.
func TestCanonicalAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		if got, ok := Canonical("127.0.0.1"); !ok || got != "127.0.0.1" {
			t.Fatal(got, ok)
		}
	}); n != 0 {
		t.Errorf("Canonical allocates %v times, want 0", n)
	}
}
