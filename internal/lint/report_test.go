package lint

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		sevs []Severity
		want int
	}{
		{nil, 0},
		{[]Severity{Info}, 0},
		{[]Severity{Info, Warning}, 1},
		{[]Severity{Warning, Error, Info}, 2},
	} {
		var fs []Finding
		for _, s := range tc.sevs {
			fs = append(fs, Finding{Severity: s})
		}
		if got := ExitCode(fs); got != tc.want {
			t.Errorf("%v: got %d, want %d", tc.sevs, got, tc.want)
		}
	}
}

func TestSortMostSevereFirstPerMaster(t *testing.T) {
	fs := []Finding{
		{Master: "b", Severity: Error, Rule: "x"},
		{Master: "a", Severity: Info, Rule: "a"},
		{Master: "a", Severity: Error, Rule: "z"},
		{Master: "a", Severity: Error, Rule: "y"},
		{Severity: Warning, Rule: "s"},
	}
	Sort(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Master+"/"+f.Rule)
	}
	if strings.Join(got, " ") != "/s a/z a/y a/a b/x" {
		t.Fatalf("got %v", got)
	}
}

func TestWriteJSONRoundTrips(t *testing.T) {
	fs := Check(parse(t, conf(2, 1)), nil, Options{})
	r := NewReport("/etc/sentinel.conf", nil, 0, fs)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if back.ExitCode != 2 || back.Counts.Errors == 0 || len(back.Findings) != len(fs) || back.Findings[0].Severity != Error {
		t.Fatalf("got %+v", back)
	}
	if !strings.Contains(buf.String(), `"severity": "error"`) || !strings.Contains(buf.String(), `"rule": "sentinel-count"`) {
		t.Fatalf("json:\n%s", buf.String())
	}
	// No findings is an empty list, not null.
	buf.Reset()
	WriteJSON(&buf, NewReport("f", nil, 0, nil))
	if !strings.Contains(buf.String(), `"findings": []`) {
		t.Fatalf("json:\n%s", buf.String())
	}
}

func TestWriteText(t *testing.T) {
	fs := Check(parse(t, conf(2, 1)), nil, Options{})
	var buf bytes.Buffer
	WriteText(&buf, NewReport("/etc/sentinel.conf", nil, 0, fs))
	out := buf.String()
	for _, want := range []string{
		"ERROR [sentinel-count] mymaster\n    only 2 Sentinels",
		"    fix: Run a third Sentinel",
		"INFO [failover-timing] mymaster\n",
		"/etc/sentinel.conf: 1 error, 0 warnings (1 info); static checks only",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > textWidth && strings.Contains(l, " ") && !strings.HasPrefix(l, "/") {
			t.Errorf("line longer than %d: %q", textWidth, l)
		}
	}
	buf.Reset()
	WriteText(&buf, NewReport("/f", []string{"a:1", "b:2"}, 0, nil))
	if buf.String() != "/f: OK; checked live through 2 Sentinels\n" {
		t.Errorf("got %q", buf.String())
	}
}
