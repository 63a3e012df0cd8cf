package respserver

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

// readAll runs a reader over input until it fails and returns the commands
// as space-joined %q words and the final error.
func readAll(input string, chunk int, rd func(io.Reader) *requestReader) ([]string, error) {
	var src io.Reader = strings.NewReader(input)
	if chunk > 0 {
		src = chunkReader{src, chunk}
	}
	r := rd(src)
	var cmds []string
	for {
		args, err := r.next()
		if err != nil {
			return cmds, err
		}
		cmds = append(cmds, commandText(args))
	}
}

// commandText is a command as readAll lists it: each argument quoted.
func commandText(args [][]byte) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(words, " ")
}

func defaultReader(src io.Reader) *requestReader { return newRequestReader(src, 0, 0, nil) }

// TestRequestReader pins how requests are split and which ones are
// refused. The errors and the commands run before them are what
// redis-sentinel 7.0.15 answered to the same bytes (an incomplete request
// is io.EOF here: Redis waits for more).
func TestRequestReader(t *testing.T) {
	ping := []string{`"PING"`}
	tests := []struct {
		name  string
		input string
		cmds  []string
		err   string // "" for io.EOF
	}{
		{"resp", "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", []string{`"PING"`, `"ECHO" ""`}, ""},
		{"count0", "*0\r\nPING\r\n", ping, ""},
		{"countneg", "*-1\r\nPING\r\n", ping, ""},
		{"count3e9", "*3000000000\r\n", nil, "Protocol error: invalid multibulk length"},
		{"countmax", "*9223372036854775807\r\n", nil, "Protocol error: invalid multibulk length"},
		{"countover", "*99999999999999999999\r\n", nil, "Protocol error: invalid multibulk length"},
		{"countplus", "*+1\r\n$4\r\nPING\r\n", nil, "Protocol error: invalid multibulk length"},
		{"count01", "*01\r\n$4\r\nPING\r\n", nil, "Protocol error: invalid multibulk length"},
		{"bulkneg", "*1\r\n$-1\r\n", nil, "Protocol error: invalid bulk length"},
		{"bulkover", "*1\r\n$536870913\r\n", nil, "Protocol error: invalid bulk length"},
		{"bulkmax", "*1\r\n$536870912\r\n", nil, ""},
		{"bulk04", "*1\r\n$04\r\nPING\r\n", nil, "Protocol error: invalid bulk length"},
		{"nodollar", "*1\r\nx4\r\nPING\r\n", nil, "Protocol error: expected '$', got 'x'"},
		{"emptybulkline", "*1\r\n\r\n", nil, "Protocol error: expected '$', got '\r'"},
		{"high byte", "*1\r\n\xe94\r\n", nil, "Protocol error: expected '$', got '\xe9'"},
		{"byte after CR not read", "*1\rX$4\r\nPING\r\n", ping, ""},
		{"CRLF after bulk not read", "*1\r\n$4\r\nPINGxy*1\r\n$4\r\nPING\r\n", []string{`"PING"`, `"PING"`}, ""},
		{"unbalanced", "PING \"unbalanced\r\n", nil, "Protocol error: unbalanced quotes in request"},
		{"unbalanced2", "ping 'a'b\r\n", nil, "Protocol error: unbalanced quotes in request"},
		{"NUL hides the newline", "PING\x00\r\nPING\r\n", nil, ""},
		{"blank", "   \r\nPING\r\n", ping, ""},
		{"empty lines", "\r\n\n\nPING\n", ping, ""},
		{"inline escapes", "PING \"\\x41\\n\" 'b c'\r\n", []string{`"PING" "A\n" "b c"`}, ""},
		{"pipeline then error", "PING\r\n*1\r\n$x\r\nPING\r\n", ping, "Protocol error: invalid bulk length"},
		{"missing args", "*2\r\n$4\r\nPING\r\n", nil, ""},
		{"inline 64k", strings.Repeat("A", 65536), nil, ""},
		{"inline too big", strings.Repeat("A", 65537), nil, "Protocol error: too big inline request"},
		{"NUL then too big", "PING\x00" + strings.Repeat("B", 70000), nil, "Protocol error: too big inline request"},
		{"long inline ok", "PING " + strings.Repeat("x", 60000) + "\r\n", []string{`"PING" "` + strings.Repeat("x", 60000) + `"`}, ""},
		{"mbulk count too big", "*" + strings.Repeat("1", 70000), nil, "Protocol error: too big mbulk count string"},
		{"bulk count too big", "*1\r\n$" + strings.Repeat("1", 70000), nil, "Protocol error: too big bulk count string"},
		{"big arg", "*2\r\n$4\r\nECHO\r\n$100000\r\n" + strings.Repeat("z", 100000) + "\r\n", []string{`"ECHO" "` + strings.Repeat("z", 100000) + `"`}, ""},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 1, 7, 4096} {
			if chunk == 1 && len(tt.input) > 20000 {
				continue
			}
			cmds, err := readAll(tt.input, chunk, defaultReader)
			var pe *protocolError
			switch {
			case tt.err == "" && err != io.EOF:
				t.Errorf("%s (chunk %d): error %v, want EOF", tt.name, chunk, err)
			case tt.err != "" && (!errors.As(err, &pe) || pe.Reply != tt.err):
				t.Errorf("%s (chunk %d): error %v, want %q", tt.name, chunk, err, tt.err)
			}
			if strings.Join(cmds, "\n") != strings.Join(tt.cmds, "\n") {
				t.Errorf("%s (chunk %d): commands %.200q, want %.200q", tt.name, chunk, cmds, tt.cmds)
			}
		}
	}
}

// TestRequestReaderUnauthenticated pins Redis's smaller limits for a
// client that must still authenticate, re-checked before each command.
func TestRequestReaderUnauthenticated(t *testing.T) {
	authed := false
	rd := func(src io.Reader) *requestReader {
		return newRequestReader(src, 0, 0, func() bool { return !authed })
	}
	tests := []struct {
		input string
		err   string
	}{
		{"*11\r\n", "Protocol error: unauthenticated multibulk length"},
		{"*10\r\n", ""},
		{"*1\r\n$16385\r\n", "Protocol error: unauthenticated bulk length"},
		{"*1\r\n$16384\r\n", ""},
	}
	for _, tt := range tests {
		_, err := readAll(tt.input, 0, rd)
		var pe *protocolError
		if tt.err == "" && err != io.EOF || tt.err != "" && (!errors.As(err, &pe) || pe.Reply != tt.err) {
			t.Errorf("%q: %v, want %q", tt.input, err, tt.err)
		}
	}

	// AUTH earlier in the same pipeline lifts the limit for what follows.
	r := rd(strings.NewReader("*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*11\r\n"))
	if args, err := r.next(); err != nil || string(args[0]) != "AUTH" {
		t.Fatalf("AUTH: %q %v", args, err)
	}
	authed = true
	if _, err := r.next(); err != io.EOF {
		t.Fatalf("after AUTH: %v, want EOF", err)
	}
}

// TestRequestReaderQueryBufferLimit checks that a pending request is cut
// at the query buffer limit, counting both the arguments already read
// and the unparsed bytes, and that announcing a huge bulk reserves
// nothing before its bytes arrive.
func TestRequestReaderQueryBufferLimit(t *testing.T) {
	const limit = 1 << 20
	rd := func(src io.Reader) *requestReader { return newRequestReader(src, limit, 0, nil) }
	tests := []struct {
		name  string
		input string
	}{
		{"one big bulk", "*1\r\n$2000000\r\n" + strings.Repeat("x", 1500000)},
		{"many bulks", "*100\r\n" + strings.Repeat("$20000\r\n"+strings.Repeat("y", 20000)+"\r\n", 60)},
		{"many empty bulks", "*1000000\r\n" + strings.Repeat("$0\r\n\r\n", 100000)},
		{"pipeline", strings.Repeat("*1\r\n$4\r\nPING\r\n", 100000)},
	}
	for _, tt := range tests {
		src := chunkReader{strings.NewReader(tt.input), 1000}
		r := rd(src)
		peak := 0
		var err error
		n := 0
		for err == nil {
			_, err = r.next()
			peak = max(peak, r.queryBytes())
			n++
		}
		wantErr := errQueryBufferLimit
		if tt.name == "pipeline" {
			wantErr = io.EOF // every command is short and taken at once
		}
		if err != wantErr {
			t.Errorf("%s: %v after %d commands, want %v", tt.name, err, n, wantErr)
		}
		if peak > limit+readChunk {
			t.Errorf("%s: %d bytes pending, over the limit %d by more than a read", tt.name, peak, limit)
		}
	}

	r := newRequestReader(strings.NewReader("*1\r\n$536870912\r\n"+strings.Repeat("x", 100000)), 0, 0, nil)
	if _, err := r.next(); err != io.EOF {
		t.Fatal(err)
	}
	if c := cap(r.big); c > 4*100000 {
		t.Errorf("announcing 512mb reserved %d bytes for 100000 received", c)
	}
}

// TestRequestReaderReleasesBuffers checks that a client that sends little
// has a small buffer, and that an idle client does not keep the buffer of
// its largest request.
func TestRequestReaderReleasesBuffers(t *testing.T) {
	small := newRequestReader(strings.NewReader("PING\r\n"), 0, 0, nil)
	if _, err := small.next(); err != nil {
		t.Fatal(err)
	}
	if c := cap(small.buf); c > initialBuf {
		t.Errorf("a 6-byte request grew the buffer to %d bytes", c)
	}

	big := "*2\r\n$4\r\nECHO\r\n$300000\r\n" + strings.Repeat("z", 300000) + "\r\n"
	r := newRequestReader(chunkReader{strings.NewReader(big + "PING\r\n"), 65536}, 0, 0, nil)
	for i := 0; i < 2; i++ {
		if _, err := r.next(); err != nil {
			t.Fatal(err)
		}
	}
	if c := cap(r.buf) + cap(r.big); c > 4*readChunk {
		t.Errorf("%d bytes of buffer kept after the request was served", c)
	}
}

func TestString2ll(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"-1", -1, true}, {"10", 10, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"", 0, false}, {"-", 0, false}, {"-0", 0, false}, {"01", 0, false}, {"+1", 0, false},
		{" 1", 0, false}, {"1 ", 0, false}, {"1a", 0, false}, {"123456789012345678901", 0, false},
	}
	for _, tt := range tests {
		got, ok := string2ll([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("string2ll(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRequestReaderLastSize checks the size of each command read, which
// INFO's client_recent_max_input_buffer records.
func TestRequestReaderLastSize(t *testing.T) {
	big := "*2\r\n$4\r\nPING\r\n$40000\r\n" + strings.Repeat("b", 40000) + "\r\n"
	input := "PING\r\n" + "*0\r\n" + "*1\r\n$4\r\nPING\r\n" + big
	for _, chunk := range []int{0, 1000} {
		var src io.Reader = strings.NewReader(input)
		if chunk > 0 {
			src = chunkReader{src, chunk}
		}
		r := newRequestReader(src, 0, 0, nil)
		var sizes []int
		for {
			if _, err := r.next(); err != nil {
				break
			}
			sizes = append(sizes, r.lastSize)
		}
		if want := []int{6, 14, len(big)}; fmt.Sprint(sizes) != fmt.Sprint(want) {
			t.Errorf("chunk %d: sizes %v, want %v", chunk, sizes, want)
		}
	}
}

// TestRequestReaderReuse: in reuse mode (a loop's), every command reads
// the same as without it whatever the read sizes, each checked before
// the next is read, including arguments split across reads (whose views
// the reader makes its own before its buffer moves) and a big argument;
// and cloneArgs keeps a command intact across the reads after it.
func TestRequestReaderReuse(t *testing.T) {
	big := strings.Repeat("b", bigArg+10)
	input := "*3\r\n$3\r\nabc\r\n$5\r\nhello\r\n$1\r\nx\r\n" +
		"PING inline\r\n" +
		"*2\r\n$4\r\necho\r\n$" + fmt.Sprint(len(big)) + "\r\n" + big + "\r\n" +
		strings.Repeat("*2\r\n$3\r\nGET\r\n$600\r\n"+strings.Repeat("k", 600)+"\r\n", 3) +
		"*1\r\n$0\r\n\r\n"
	want, err := readAll(input, 0, defaultReader)
	if !errors.Is(err, io.EOF) || len(want) != 7 {
		t.Fatalf("without reuse: %d commands, %v", len(want), err)
	}
	for chunk := 1; chunk <= 700; chunk += 7 {
		got, err := readAll(input, chunk, func(src io.Reader) *requestReader {
			r := defaultReader(src)
			r.reuse = true
			return r
		})
		if !errors.Is(err, io.EOF) || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("chunks of %d: %v\n%q\nwant\n%q", chunk, err, got, want)
		}
	}
	r := defaultReader(chunkReader{strings.NewReader(input), 5})
	r.reuse = true
	first, err := r.next()
	if err != nil {
		t.Fatal(err)
	}
	kept := cloneArgs(first)
	for range 6 {
		if _, err := r.next(); err != nil {
			t.Fatal(err)
		}
	}
	if got := commandText(kept); got != want[0] {
		t.Errorf("cloned command %s, want %s", got, want[0])
	}
}
