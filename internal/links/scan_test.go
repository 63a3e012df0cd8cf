package links

import (
	"errors"
	"strings"
	"testing"
)

// TestReplyScanAgreesWithParser: fed a reply one byte more at a time, the
// scan says whole exactly when the parser stops saying incomplete, for
// every kind of reply, nested arrays and replies followed by more bytes
// among them; so a kept reply is parsed once, when whole.
func TestReplyScanAgreesWithParser(t *testing.T) {
	big := "*3\r\n" + strings.Repeat("$5\r\nhello\r\n", 3)
	cases := []struct{ name, reply, after string }{
		{"status", "+OK\r\n", ""},
		{"error", "-ERR no\r\n", "+OK\r\n"},
		{"integer", ":42\r\n", ""},
		{"bulk", "$5\r\nhello\r\n", ":1\r\n"},
		{"bulk with CRLF inside", "$4\r\na\r\nb\r\n", ""},
		{"empty bulk", "$0\r\n\r\n", ""},
		{"nil bulk", "$-1\r\n", "+x\r\n"},
		{"nil array", "*-1\r\n", ""},
		{"empty array", "*0\r\n", ":1\r\n"},
		{"array", big, big},
		{"nested", "*2\r\n*2\r\n:1\r\n$1\r\na\r\n*0\r\n", "+OK\r\n"},
		{"deep", "*1\r\n*1\r\n*1\r\n*2\r\n+a\r\n*1\r\n$-1\r\n", ""},
		{"message", "*3\r\n$7\r\nmessage\r\n$7\r\n__hello\r\n$10\r\n0123456789\r\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			all := tc.reply + tc.after
			var sc replyScan
			for i := 1; i <= len(all); i++ {
				prefix := []byte(all[:i])
				whole := sc.whole(prefix)
				_, _, err := parseReply(prefix)
				incomplete := errors.Is(err, errIncomplete)
				if whole == incomplete {
					t.Fatalf("after %d of %d bytes: scan says whole=%v, parser %v", i, len(all), whole, err)
				}
				if i >= len(tc.reply) && !whole {
					t.Fatalf("the whole reply scanned as incomplete")
				}
			}
		})
	}
}

// TestReplyScanLeavesMalformedToParser: on a malformed line the scan says
// whole, so that the parser gives its error at once.
func TestReplyScanLeavesMalformedToParser(t *testing.T) {
	for _, in := range []string{"?x\r\n", "$x\r\n", "*1\nfoo", "\r\n", "+OK\n", "*" + strings.Repeat("9", 20) + "\r\n", strings.Repeat("x", maxLineLen+1)} {
		var sc replyScan
		if !sc.whole([]byte(in)) {
			t.Errorf("%q: scanned as incomplete", in)
		}
		if _, _, err := parseReply([]byte(in)); err == nil || errors.Is(err, errIncomplete) {
			t.Errorf("%q: the parser says %v", in, err)
		}
	}
}

// TestParseKeptOnceWhole: a huge array arriving in small reads is given to
// the parser only when whole (parseKept answers incomplete from the scan
// alone before), and the scan restarts after it.
func TestParseKeptOnceWhole(t *testing.T) {
	const n = 20000
	reply := "*" + itoa(n) + "\r\n" + strings.Repeat(":1\r\n", n)
	data := []byte(reply + "+next\r\n")
	var sc replyScan
	var kept []byte
	parsed := 0
	for off := 0; off < len(data); off += 64 {
		end := min(off+64, len(data))
		kept = append(kept, data[off:end]...)
		r, used, err := parseKept(kept, &sc, false)
		if errors.Is(err, errIncomplete) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		parsed++
		if len(r.Elems) != n {
			t.Fatalf("%d elements, want %d", len(r.Elems), n)
		}
		kept = kept[used:]
		if sc.off != 0 || sc.ready {
			t.Fatalf("the scan was not reset after the parse: %+v", sc)
		}
	}
	if parsed != 1 {
		t.Fatalf("parsed %d times", parsed)
	}
	if r, _, err := parseKept(kept, &sc, false); err != nil || r.Str != "next" {
		t.Fatalf("the next reply: %+v %v", r, err)
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}

// BenchmarkKeptHugeArray reads a 200,000-element array in 64 KiB reads
// into kept data, parsing it with the scan (parseKept) and, for
// comparison, again from its start at every read (the loop's way before
// the scan).
func BenchmarkKeptHugeArray(b *testing.B) {
	const n = 200000
	data := []byte("*" + itoa(n) + "\r\n" + strings.Repeat(":1\r\n", n))
	for _, mode := range []string{"scan", "reparse"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				var sc replyScan
				scp := &sc
				if mode == "reparse" {
					scp = nil
				}
				var kept []byte
				for off := 0; off < len(data); off += 64 << 10 {
					kept = append(kept, data[off:min(off+64<<10, len(data))]...)
					if _, _, err := parseKept(kept, scp, false); err == nil {
						break
					}
				}
			}
		})
	}
}
