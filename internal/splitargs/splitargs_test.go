package splitargs

import (
	"errors"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		err  bool
	}{
		{"empty", "", []string{}, false},
		{"blanks only", " \t\v\f\r\n", []string{}, false},
		{"plain words", "sentinel monitor m 127.0.0.1 6379 2", []string{"sentinel", "monitor", "m", "127.0.0.1", "6379", "2"}, false},
		{"multiple separators", "a \t  b", []string{"a", "b"}, false},
		{"double quoted with space", `logfile "my log.txt"`, []string{"logfile", "my log.txt"}, false},
		{"empty double quotes", `bind ""`, []string{"bind", ""}, false},
		{"empty single quotes", `bind ''`, []string{"bind", ""}, false},
		{"escapes", `x "a\nb\rc\td\be\af\\g\"h\qi"`, []string{"x", "a\nb\rc\td\be\af\\g\"hqi"}, false},
		{"hex escape", `x "\x41\x7a\x00!"`, []string{"x", "Az\x00!"}, false},
		{"hex escape upper", `x "\x4A"`, []string{"x", "J"}, false},
		{"bad hex escape is a plain escape", `x "\xZZ"`, []string{"x", "xZZ"}, false},
		{"single quotes keep backslashes", `x 'a\nb'`, []string{"x", `a\nb`}, false},
		{"single quote escape", `x 'it\'s'`, []string{"x", "it's"}, false},
		{"quote inside word starts quoting", `x ab"c d"`, []string{"x", "abc d"}, false},
		{"single quote inside word", `x ab'c d'`, []string{"x", "abc d"}, false},
		{"double quote inside single", `x 'a"b'`, []string{"x", `a"b`}, false},
		{"single quote inside double", `x "a'b"`, []string{"x", "a'b"}, false},
		{"closing quote then tab", "x \"a\"\ty", []string{"x", "a", "y"}, false},
		{"closing quote at end", `x "a"`, []string{"x", "a"}, false},
		{"NUL ends the line", "a b\x00c d", []string{"a", "b"}, false},
		{"vertical tab is not a separator inside a word", "a\vb", []string{"a\vb"}, false},
		{"unterminated double", `x "abc`, nil, true},
		{"unterminated single", `x 'abc`, nil, true},
		{"closing double followed by text", `x "a"b`, nil, true},
		{"closing single followed by text", `x 'a'b`, nil, true},
		{"trailing backslash in quotes", `x "abc\`, nil, true},
		{"escaped closing quote", `x "abc\"`, nil, true},
		{"lone quote", `"`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.in)
			if tt.err {
				if !errors.Is(err, ErrUnbalancedQuotes) {
					t.Fatalf("Split(%q) = %q, %v; want ErrUnbalancedQuotes", tt.in, got, err)
				}
				return
			}
			if err != nil || got == nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Split(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestReprRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "with space", `q"uote`, `back\slash`, "nl\nx", "\r\t\a\b", "\x00\x01\xff", "it's", "#hash", "ünïcode"} {
		for _, enc := range []func(string) string{Repr, Quote} {
			line := "k " + enc(s)
			got, err := Split(line)
			if err != nil || len(got) != 2 || got[1] != s {
				t.Errorf("Split(%q) = %q, %v; want [k %q]", line, got, err, s)
			}
		}
	}
}

func TestRepr(t *testing.T) {
	tests := map[string]string{
		"abc":          `"abc"`,
		"":             `""`,
		"a b":          `"a b"`,
		`a"b\c`:        `"a\"b\\c"`,
		"\n\r\t\a\b":   `"\n\r\t\a\b"`,
		"\x00\x7f\xe9": `"\x00\x7f\xe9"`,
	}
	for in, want := range tests {
		if got := Repr(in); got != want {
			t.Errorf("Repr(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestQuote(t *testing.T) {
	tests := map[string]string{
		"abc":         "abc",
		"127.0.0.1":   "127.0.0.1",
		"/tmp/x.sh":   "/tmp/x.sh",
		"~*":          "~*",
		"#abc":        "#abc",
		"":            `""`,
		"a b":         `"a b"`,
		"it's":        `"it's"`,
		`c:\x`:        `"c:\\x"`,
		"caf\xc3\xa9": `"caf\xc3\xa9"`,
	}
	for in, want := range tests {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzSplit checks that the splitter never panics, and that whatever it
// accepts survives a Repr round trip.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"", "a b c", `"a b" 'c d'`, `"\x41\n"`, `'it\'s'`, `"unterminated`, `a"b"`, "\x00", `"\x4`, `"\`,
		"sentinel monitor mymaster 127.0.0.1 6379 2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args, err := Split(line)
		if err != nil {
			if !errors.Is(err, ErrUnbalancedQuotes) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = Repr(a)
		}
		back, err := Split(joinSpace(quoted))
		if err != nil || !slices.Equal(back, args) {
			t.Fatalf("round trip of %q: got %q, %v", args, back, err)
		}
	})
}

func joinSpace(words []string) string {
	s := ""
	for i, w := range words {
		if i > 0 {
			s += " "
		}
		s += w
	}
	return s
}
