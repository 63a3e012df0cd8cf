package respserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestSentinelExplain(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"SENTINEL", "EXPLAIN", "nope"}, "-ERR No such master with that name\r\n"},
		{[]string{"SENTINEL", "EXPLAIN", "nope", "JSON"}, "-ERR No such master with that name\r\n"},
		{[]string{"SENTINEL", "EXPLAIN"}, "-ERR wrong number of arguments for 'sentinel|explain' command\r\n"},
		{[]string{"SENTINEL", "EXPLAIN", "mymaster", "XML"}, "-ERR syntax error\r\n"},
		{[]string{"SENTINEL", "EXPLAIN", "mymaster", "JSON", "x"}, "-ERR unknown subcommand or wrong number of arguments for 'EXPLAIN'. Try SENTINEL HELP.\r\n"},
	} {
		if got := c.Do(tt.args...); got != tt.want {
			t.Errorf("%v = %q, want %q", tt.args, got, tt.want)
		}
	}

	text := c.Do("SENTINEL", "EXPLAIN", "mymaster")
	if !strings.HasPrefix(text, "$") || !strings.Contains(text, "master mymaster 127.0.0.1 6379: ") || !strings.Contains(text, "\n  why: ") {
		t.Errorf("TEXT reply %q", text)
	}
	// The ages in the text move between two calls: compare without digits.
	noDigits := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	if lower := c.Do("sentinel", "explain", "mymaster", "text"); noDigits(firstLine(lower)) != noDigits(firstLine(text)) {
		t.Errorf("text in lower case differs: %q", lower)
	}

	raw := c.Do("SENTINEL", "EXPLAIN", "mymaster", "JSON")
	body := raw[strings.Index(raw, "\r\n")+2 : len(raw)-2]
	var e map[string]any
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("JSON reply %q: %v", raw, err)
	}
	if e["master"] != "mymaster" || e["port"] != 6379.0 || e["stage"] == nil {
		t.Errorf("JSON %v", e)
	}

	m2 := c.Do("SENTINEL", "EXPLAIN", "mymaster", "MAP")
	if !strings.HasPrefix(m2, "*") || !strings.Contains(m2, "\r\n$6\r\nmaster\r\n$8\r\nmymaster\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n$4\r\nport\r\n:6379\r\n") {
		t.Errorf("MAP in RESP2 %.200q", m2)
	}
	c.Do("HELLO", "3")
	m3 := c.Do("SENTINEL", "EXPLAIN", "mymaster", "map")
	if !strings.HasPrefix(m3, "%") || !strings.Contains(m3, "$6\r\nmaster\r\n$8\r\nmymaster\r\n") {
		t.Errorf("MAP in RESP3 %.200q", m3)
	}
	if !strings.Contains(m3, "$9\r\ndetection\r\n%") {
		t.Errorf("MAP in RESP3 has no nested detection map: %.400q", m3)
	}
}

func TestJSONValue(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Value
	}{
		{`{"b":1,"a":[true,false,null,"s",1.5],"c":{}}`, Map{Bulk("b"), Int(1), Bulk("a"), Array{Int(1), Int(0), Null{}, Bulk("s"), Bulk("1.5")}, Bulk("c"), Map{}}},
		{`[]`, Array{}},
		{`-7`, Int(-7)},
	} {
		got, err := jsonValue(json.NewDecoder(strings.NewReader(tt.in)))
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if g, w := Encode(nil, got, 3), Encode(nil, tt.want, 3); !bytes.Equal(g, w) {
			t.Errorf("%s: %q, want %q", tt.in, g, w)
		}
	}
	if _, err := jsonValue(json.NewDecoder(strings.NewReader(`{"a":`))); err == nil {
		t.Error("truncated JSON accepted")
	}
}
