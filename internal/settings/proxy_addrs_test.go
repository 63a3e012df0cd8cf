package settings

import (
	"errors"
	"testing"
)

// TestParseProxyAddrs: pairs of an IP address and a port, canonical, in
// order; anything else is ErrProxyAddr; FormatProxyAddrs writes back what
// was read.
func TestParseProxyAddrs(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{in: "", want: ""},
		{in: "127.0.0.1 6380", want: "127.0.0.1 6380"},
		{in: "127.1 6380  ::1 6381", want: "127.0.0.1 6380 ::1 6381"},
		{in: "::ffff:10.0.0.1 1", want: "10.0.0.1 1"},
		{in: "127.0.0.1", bad: true},
		{in: "127.0.0.1 0", bad: true},
		{in: "127.0.0.1 65536", bad: true},
		{in: "* 6380", bad: true},
		{in: "localhost 6380", bad: true},
		{in: "127.0.0.1 6380 127.1 6380", bad: true},
	} {
		as, err := ParseProxyAddrs(tc.in)
		if tc.bad {
			if !errors.Is(err, ErrProxyAddr) {
				t.Errorf("%q: got %v, want ErrProxyAddr", tc.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := FormatProxyAddrs(as); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCanonicalIP: numeric addresses in their canonical text, IPv4-mapped
// IPv6 as IPv4; names are not numeric.
func TestCanonicalIP(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"127.1", "127.0.0.1", true},
		{"0x7f.1", "127.0.0.1", true},
		{"::FFFF:1.2.3.4", "1.2.3.4", true},
		{"fe80::1%eth0", "fe80::1", true},
		{"redis-0.example", "", false},
	} {
		got, ok := CanonicalIP(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q: got %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestAddrString: Redis's name of an instance, IPv6 in brackets.
func TestAddrString(t *testing.T) {
	for _, tc := range []struct {
		addr Addr
		want string
	}{
		{Addr{Host: "127.0.0.1", Port: 6379}, "127.0.0.1:6379"},
		{Addr{Host: "::1", Port: 6380}, "[::1]:6380"},
		{Addr{Host: "fe80::1%eth0", Port: 1}, "[fe80::1%eth0]:1"},
		{Addr{Host: "replica.example", Port: 7000}, "replica.example:7000"},
		{Addr{Host: "", Port: 0}, ":0"},
		{Addr{Host: "h", Port: -1}, "h:-1"},
	} {
		if got := tc.addr.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// TestAddrInfoText: INFO's address= text keeps an IPv6 host bare, as
// Redis writes it and redis_exporter's label carries it.
func TestAddrInfoText(t *testing.T) {
	if got := (Addr{Host: "::1", Port: 6379}).InfoText(); got != "::1:6379" {
		t.Errorf("got %q", got)
	}
	if got := (Addr{Host: "10.0.0.1", Port: 6379}).InfoText(); got != "10.0.0.1:6379" {
		t.Errorf("got %q", got)
	}
}
