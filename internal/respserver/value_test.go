package respserver

import "testing"

func TestEncode(t *testing.T) {
	tests := []struct {
		name   string
		v      Value
		r2, r3 string
	}{
		{"status", OK, "+OK\r\n", "+OK\r\n"},
		{"status strips CRLF", Status("a\r\nb"), "+a  b\r\n", "+a  b\r\n"},
		{"error", Err("ERR boom"), "-ERR boom\r\n", "-ERR boom\r\n"},
		{"int", Int(-42), ":-42\r\n", ":-42\r\n"},
		{"bulk", Bulk("hello"), "$5\r\nhello\r\n", "$5\r\nhello\r\n"},
		{"empty bulk", Bulk(""), "$0\r\n\r\n", "$0\r\n\r\n"},
		{"null", Null{}, "$-1\r\n", "_\r\n"},
		{"null array", NullArray{}, "*-1\r\n", "_\r\n"},
		{"array", Array{Bulk("a"), Int(1)}, "*2\r\n$1\r\na\r\n:1\r\n", "*2\r\n$1\r\na\r\n:1\r\n"},
		{"map", Map{Bulk("k"), Bulk("v")}, "*2\r\n$1\r\nk\r\n$1\r\nv\r\n", "%1\r\n$1\r\nk\r\n$1\r\nv\r\n"},
		{"push", Push{Bulk("message"), Bulk("c"), Bulk("m")},
			"*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n", ">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n"},
		{"verbatim", Verbatim("id=1\n"), "$5\r\nid=1\n\r\n", "=9\r\ntxt:id=1\n\r\n"},
		{"nested map in array", Array{Map{Bulk("a"), Array{}}}, "*1\r\n*2\r\n$1\r\na\r\n*0\r\n", "*1\r\n%1\r\n$1\r\na\r\n*0\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Encode(nil, tt.v, 2)); got != tt.r2 {
				t.Errorf("RESP2 %q, want %q", got, tt.r2)
			}
			if got := string(Encode(nil, tt.v, 3)); got != tt.r3 {
				t.Errorf("RESP3 %q, want %q", got, tt.r3)
			}
		})
	}
}

func BenchmarkEncodeMasterMap(b *testing.B) {
	m := make(Map, 0, 40)
	for i := 0; i < 20; i++ {
		m = append(m, Bulk("down-after-milliseconds"), Bulk("30000"))
	}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = Encode(buf[:0], m, 3)
	}
}
