package gossip

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const helloTestID = "546985d8f2a40f93b8fdce2cd2052e0866527846"

func TestEncodeHello(t *testing.T) {
	// The payloads were captured from redis-sentinel 7.0.15 (port 17326)
	// monitoring one redis-server as mymaster over 127.0.0.1 and as
	// v6master over ::1.
	tests := []struct {
		h    Hello
		want string
	}{
		{Hello{"127.0.0.1", 17326, helloTestID, 0, "mymaster", "127.0.0.1", 17321, 0},
			"127.0.0.1,17326," + helloTestID + ",0,mymaster,127.0.0.1,17321,0"},
		{Hello{"::1", 17326, helloTestID, 0, "v6master", "::1", 17321, 0},
			"::1,17326," + helloTestID + ",0,v6master,::1,17321,0"},
		{Hello{"127.0.0.1", 27000, "e1a3d79fbef40e7899a4e61914e0efbda44ef2f5", 0, "mymaster", "127.0.0.1", 7000, 0},
			"127.0.0.1,27000,e1a3d79fbef40e7899a4e61914e0efbda44ef2f5,0,mymaster,127.0.0.1,7000,0"},
		{Hello{"", 0, "", math.MaxUint64, "m", "host.example", 6379, 42},
			",0,,18446744073709551615,m,host.example,6379,42"},
	}
	for _, tt := range tests {
		if got := tt.h.Encode(); got != tt.want {
			t.Errorf("Encode(%+v) = %q, want %q", tt.h, got, tt.want)
		}
		got, err := DecodeHello(tt.want)
		if err != nil || got != tt.h {
			t.Errorf("DecodeHello(%q) = %+v, %v; want %+v", tt.want, got, err, tt.h)
		}
	}
}

func TestDecodeHello(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    Hello
		err     error
	}{
		{"captured", "127.0.0.1,17326," + helloTestID + ",3,mymaster,127.0.0.1,17321,2",
			Hello{"127.0.0.1", 17326, helloTestID, 3, "mymaster", "127.0.0.1", 17321, 2}, nil},
		{"ipv6 unbracketed", "fe80::1,26379,id,1,m,2001:db8::7,6379,1",
			Hello{"fe80::1", 26379, "id", 1, "m", "2001:db8::7", 6379, 1}, nil},
		{"all empty", ",,,,,,,", Hello{}, nil},
		{"strings kept as written", " a ,1, id ,0,my master, b ,2,0",
			Hello{" a ", 1, " id ", 0, "my master", " b ", 2, 0}, nil},
		{"port atoi prefix", "a, +26379x,id,0,m,b,\t6379 ,0",
			Hello{"a", 26379, "id", 0, "m", "b", 6379, 0}, nil},
		{"port not a number is 0", "a,port,id,0,m,b,,0", Hello{"a", 0, "id", 0, "m", "b", 0, 0}, nil},
		{"port negative", "a,-1,id,0,m,b,-6379,0", Hello{"a", -1, "id", 0, "m", "b", -6379, 0}, nil},
		{"port wraps like atoi", "a,4294967297,id,0,m,b,99999999999999999999,0",
			Hello{"a", 1, "id", 0, "m", "b", -1, 0}, nil},
		{"epoch not a number is 0", "a,1,id,x,m,b,2,0x5", Hello{"a", 1, "id", 0, "m", "b", 2, 0}, nil},
		{"epoch strtoull prefix", "a,1,id, 12abc,m,b,2,+7", Hello{"a", 1, "id", 12, "m", "b", 2, 7}, nil},
		{"epoch negative wraps", "a,1,id,-1,m,b,2,-2",
			Hello{"a", 1, "id", math.MaxUint64, "m", "b", 2, math.MaxUint64 - 1}, nil},
		{"epoch overflow saturates", "a,1,id,18446744073709551616,m,b,2,18446744073709551615",
			Hello{"a", 1, "id", math.MaxUint64, "m", "b", 2, math.MaxUint64}, nil},
		{"fields end at NUL", "a\x00x,1\x002,id\x00y,3,m\x00z,b,4,5\x006",
			Hello{"a", 1, "id", 3, "m", "b", 4, 5}, nil},
		{"CRLF is part of the last field", "a,1,id,0,m,b,2,3\r\n", Hello{"a", 1, "id", 0, "m", "b", 2, 3}, nil},
		{"CRLF in a string field", "a,1,id,0,m\r\n,b,2,3", Hello{"a", 1, "id", 0, "m\r\n", "b", 2, 3}, nil},

		{"empty", "", Hello{}, ErrHelloFields},
		{"one field", "hello", Hello{}, ErrHelloFields},
		{"seven fields", "a,1,id,0,m,b,2", Hello{}, ErrHelloFields},
		{"trailing comma makes nine", "a,1,id,0,m,b,2,0,", Hello{}, ErrHelloFields},
		{"nine fields", "a,1,id,0,m,b,2,0,extra", Hello{}, ErrHelloFields},
		{"comma in master name", "a,1,id,0,my,master,b,2,0", Hello{}, ErrHelloFields},
		{"space separated", "a 1 id 0 m b 2 0", Hello{}, ErrHelloFields},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeHello(tt.payload)
			if !errors.Is(err, tt.err) {
				t.Fatalf("DecodeHello(%q) error = %v, want %v", tt.payload, err, tt.err)
			}
			if got != tt.want {
				t.Fatalf("DecodeHello(%q) = %+v, want %+v", tt.payload, got, tt.want)
			}
		})
	}
}

func TestContainsRunID(t *testing.T) {
	own := "127.0.0.1,17326," + helloTestID + ",0,mymaster,127.0.0.1,17321,0"
	tests := []struct {
		name          string
		payload, myid string
		want          bool
	}{
		{"own hello", own, helloTestID, true},
		{"other sentinel", own, strings.Repeat("0", 40), false},
		{"anywhere, not only the runid field", "x," + helloTestID + "suffix", helloTestID, true},
		{"in the master name", "a,1,other,0," + helloTestID + ",b,2,0", helloTestID, true},
		{"after a NUL is not seen", "a,1,\x00" + helloTestID, helloTestID, false},
		{"case-sensitive", strings.ToUpper(own), helloTestID, false},
		{"prefix only", own[:40], helloTestID, false},
		{"empty id matches", "anything", "", true},
	}
	for _, tt := range tests {
		if got := ContainsRunID(tt.payload, tt.myid); got != tt.want {
			t.Errorf("%s: ContainsRunID(%q, %q) = %v, want %v", tt.name, tt.payload, tt.myid, got, tt.want)
		}
	}
}

// helloRoundTrips reports whether h is a hello Encode writes in a form
// DecodeHello reads back unchanged.
func helloRoundTrips(h Hello) bool {
	for _, s := range []string{h.SentinelIP, h.RunID, h.MasterName, h.MasterIP} {
		if strings.ContainsAny(s, ",\x00") {
			return false
		}
	}
	return h.SentinelPort == int(int32(h.SentinelPort)) && h.MasterPort == int(int32(h.MasterPort))
}

func FuzzDecodeHello(f *testing.F) {
	f.Add("127.0.0.1,17326,"+helloTestID+",0,mymaster,127.0.0.1,17321,0",
		"127.0.0.1", 17326, helloTestID, uint64(0), "mymaster", "127.0.0.1", 17321, uint64(0))
	f.Add("::1,1,x,-1,m,::1,99999999999999999999,18446744073709551616",
		"::1", -1, "", uint64(math.MaxUint64), "", "::1", math.MaxInt32, uint64(1))
	f.Add(",,,,,,,", "a\x00", 1<<40, ",", uint64(7), "m", "b", -5, uint64(9))
	f.Fuzz(func(t *testing.T, payload, ip string, port int, id string, epoch uint64,
		name, mip string, mport int, cepoch uint64) {
		d, err := DecodeHello(payload)
		if err != nil {
			if !errors.Is(err, ErrHelloFields) {
				t.Fatalf("DecodeHello(%q) error %v is not ErrHelloFields", payload, err)
			}
			if strings.Count(payload, ",") == helloFields-1 && payload != "" {
				t.Fatalf("DecodeHello(%q) rejected 8 fields: %v", payload, err)
			}
		} else {
			if !helloRoundTrips(d) {
				t.Fatalf("DecodeHello(%q) = %+v, which does not round-trip", payload, d)
			}
			if again, err := DecodeHello(d.Encode()); err != nil || again != d {
				t.Fatalf("decode(encode(%+v)) = %+v, %v", d, again, err)
			}
		}

		h := Hello{ip, port, id, epoch, name, mip, mport, cepoch}
		if !helloRoundTrips(h) {
			return
		}
		got, err := DecodeHello(h.Encode())
		if err != nil || got != h {
			t.Fatalf("decode(encode(%+v)) = %+v, %v (payload %q)", h, got, err, h.Encode())
		}
	})
}

// TestDecodeHelloAllocatesNothing: a Sentinel decodes a hello per
// instance every 2 s, so decoding one allocates nothing.
func TestDecodeHelloAllocatesNothing(t *testing.T) {
	p := "127.0.0.1,26379,0123456789abcdef0123456789abcdef01234567,7,mymaster,127.0.0.1,6379,7"
	if n := testing.AllocsPerRun(100, func() {
		if _, err := DecodeHello(p); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("DecodeHello allocates %v times, want 0", n)
	}
}

func BenchmarkDecodeHello(b *testing.B) {
	p := "127.0.0.1,26379,0123456789abcdef0123456789abcdef01234567,7,mymaster,127.0.0.1,6379,7"
	b.ReportAllocs()
	for b.Loop() {
		_, _ = DecodeHello(p)
	}
}
