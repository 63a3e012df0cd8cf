package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/logging"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// specialSamples are valid values of the directives whose values the
// round-trip test cannot derive from their type, as config line values.
var specialSamples = map[string][]string{
	"bind":                              {"127.0.0.1 ::1", `""`, "* -::*", `"10.0.0.1 10.0.0.2"`, "1.2.3.4"},
	"metrics-addr":                      {`""`, "127.0.0.1:9121", ":9121", "[::1]:9121", "localhost:1", "host:65535"},
	"save":                              {"900 1 300 10", `""`},
	"client-output-buffer-limit":        {"normal 0 0 0 replica 256mb 64mb 60"},
	"oom-score-adj-values":              {"0 200 800"},
	"notify-keyspace-events":            {"KEA", `""`},
	"replicaof":                         {"127.0.0.1 6379", "no one"},
	"latency-tracking-info-percentiles": {"50 99 99.9", `""`},
}

// loaderSamples are lines of the loader directives; %s stands for a
// directory holding inc.conf.
var loaderSamples = map[string][]string{
	"include":        {"include %s/inc.conf"},
	"rename-command": {"rename-command ping pong", `rename-command SHUTDOWN ""`},
	"user":           {"user alice on >pw ~* &* +@all", "user default off"},
	"loadmodule":     {"loadmodule /x/y.so a b"},
	// The sentinel lines have a table of their own: TestSentinelTableRoundTrip.
	"sentinel": nil,
}

// sampleValues returns valid values (as config line values) of a
// directive: every spelling its type allows at the edges, plus the
// special samples.
func sampleValues(t *testing.T, d *directive) []string {
	t.Helper()
	if v, ok := specialSamples[d.name]; ok {
		return v
	}
	switch d.kind {
	case kindBool:
		return []string{"yes", "no", "YES"}
	case kindEnum:
		return append(slices.Clone(d.enum), strings.ToUpper(d.enum[0]))
	case kindString:
		if d.check != nil {
			return []string{"x"}
		}
		return []string{`""`, "x", `"a b"`, `"q\"uote"`, "/p/ath"}
	case kindNumber:
		switch {
		case d.flags&numOctal != 0:
			return []string{strconv.FormatUint(d.ulo, 8), strconv.FormatUint(d.uhi, 8), "0750"}
		case d.unsigned:
			return []string{strconv.FormatUint(d.ulo, 10), strconv.FormatUint(d.uhi, 10)}
		case d.flags&numPercent != 0:
			return []string{"0", strconv.FormatInt(d.hi, 10), "10%"}
		}
		return []string{strconv.FormatInt(d.lo, 10), strconv.FormatInt(d.hi, 10), strconv.FormatInt(d.lo/2+d.hi/2, 10)}
	}
	t.Fatalf("directive %s: no sample values; add them to specialSamples", d.name)
	return nil
}

// roundTripLines parses text, rewrites the same text with the parsed
// state (from the working directory its `dir` leads to, as a running
// Sentinel does), parses the result and checks that both parses agree and
// that a second rewrite changes nothing. It returns both configurations
// and the rewritten file.
func roundTripLines(t *testing.T, cwd, text string) (*Config, *Config, string) {
	t.Helper()
	c1, err := ParseWith(testFile, []byte(text), nil, Options{Cwd: cwd})
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	opts := RewriteOptions{Cwd: cmp.Or(c1.WorkDir, cwd)}
	out := RewriteBytes([]byte(text), c1.Server, c1.Sentinel, opts)
	c2, err := ParseWith(testFile, out, nil, Options{Cwd: cwd})
	if err != nil {
		t.Fatalf("re-parse of the rewrite of %q: %v\n%s", text, err, out)
	}
	if !reflect.DeepEqual(c1.Server, c2.Server) || !reflect.DeepEqual(c1.Sentinel, c2.Sentinel) {
		t.Fatalf("%q: re-parsed state differs\nrewritten:\n%s\nwas %+v\n%+v\nnow %+v\n%+v", text, out, c1.Server, c1.Sentinel, c2.Server, c2.Sentinel)
	}
	if again := RewriteBytes(out, c2.Server, c2.Sentinel, opts); !bytes.Equal(again, out) {
		t.Fatalf("%q: second rewrite differs:\n%s\nfirst:\n%s", text, again, out)
	}
	return c1, c2, string(out)
}

func ignoredTexts(c *Config) []string {
	var out []string
	for _, l := range c.Ignored {
		out = append(out, l.Text)
	}
	return out
}

// TestDirectiveTableRoundTrip walks the whole directive table and takes
// every directive, at its edge values and at its default, through parse →
// rewrite → parse: over the file it came from (what a running Sentinel
// does) and, for the directives the rewrite writes, into an empty file.
func TestDirectiveTableRoundTrip(t *testing.T) {
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "inc.conf"), []byte("timeout 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range directiveTable {
		d := &directiveTable[i]
		t.Run(d.name, func(t *testing.T) {
			dirLine := "dir " + splitargs.Repr(cwd) + "\n"
			if d.since != commands.Surface70 {
				// A directive of a later surface needs it selected.
				dirLine += "sentinel command-surface " + d.since.String() + "\n"
			}
			switch {
			case d.kind == kindDeprecated:
				// Accepted and ignored, but unknown to the rewrite: it
				// turns the line into a comment, as Redis does.
				line := d.name + " 1"
				c := mustParse(t, line)
				out := string(RewriteBytes([]byte(line+"\n"), c.Server, c.Sentinel, RewriteOptions{Cwd: cwd}))
				if len(c.Ignored) != 1 || !strings.HasPrefix(out, "# ??? "+line+"\n") {
					t.Fatalf("ignored %v, rewritten:\n%s", c.Ignored, out)
				}
			case d.kind == kindLoader:
				samples, ok := loaderSamples[d.name]
				if !ok {
					t.Fatalf("no sample lines for loader directive %s", d.name)
				}
				for _, s := range samples {
					line := s
					if strings.Contains(s, "%s") {
						line = fmt.Sprintf(s, cwd)
					}
					c1, _, out := roundTripLines(t, cwd, dirLine+line+"\n")
					if !strings.Contains(out, "\n"+line+"\n") && d.rewrite == nil {
						t.Errorf("%q not kept:\n%s", line, out)
					}
					if d.each != nil && len(d.each(&c1.Server)) == 0 {
						t.Errorf("%q stored nothing", line)
					}
				}
			case d.name == "dir":
				sub := filepath.Join(cwd, "sub dir")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				c1, _, out := roundTripLines(t, cwd, "dir "+splitargs.Repr(sub)+"\n")
				if c1.Server.Dir != sub || !strings.HasPrefix(out, "dir "+splitargs.Repr(sub)+"\n") {
					t.Fatalf("dir %q, rewritten:\n%s", c1.Server.Dir, out)
				}
			case d.get != nil:
				for _, v := range append(sampleValues(t, d), splitargs.Repr(d.def)) {
					if d.multi && v == splitargs.Repr(d.def) {
						v = d.def
					}
					roundTripHonoured(t, d, cwd, dirLine, d.name+" "+v)
				}
			default:
				for _, v := range sampleValues(t, d) {
					line := d.name + " " + v
					c1, c2, out := roundTripLines(t, cwd, dirLine+line+"\n")
					if !reflect.DeepEqual(ignoredTexts(c1), []string{line}) || !reflect.DeepEqual(ignoredTexts(c2), []string{line}) {
						t.Errorf("%q: ignored %v then %v", line, ignoredTexts(c1), ignoredTexts(c2))
					}
					if !strings.Contains(out, "\n"+line+"\n") {
						t.Errorf("%q not kept:\n%s", line, out)
					}
					if c1.Server.MetricsAddr != "" || !reflect.DeepEqual(c1.Server, mustParse(t, "dir "+splitargs.Repr(cwd)).Server) {
						t.Errorf("%q changed a Server field", line)
					}
				}
			}
		})
	}
}

// roundTripHonoured checks one line of a directive that owns a Server
// field: through its own file and through an empty one, with Redis's rule
// on what is written.
func roundTripHonoured(t *testing.T, d *directive, cwd, dirLine, line string) {
	t.Helper()
	c1, _, out := roundTripLines(t, cwd, dirLine+line+"\n")
	words := d.get(&c1.Server)
	def := d.defaultWords()
	atDefault := slices.Equal(words, def)
	if d.dropDefault && atDefault {
		if strings.Contains(out, "\n"+d.name+" ") {
			t.Errorf("%q at its default: line kept:\n%s", line, out)
		}
	} else if !strings.Contains(out, "\n"+d.name+" "+d.rewriteText(words)+"\n") {
		t.Errorf("%q: rewritten file lacks it:\n%s", line, out)
	}

	// Into an empty file: written when not at the (rewrite) default.
	if d.rewriteDef != "" && slices.Equal(words, []string{d.rewriteDef}) {
		// `port 6379` and `protected-mode yes` are Redis's defaults, which
		// the rewrite compares with, so they are not written into a file
		// that lacks them (as Redis does) and would read back as the
		// Sentinel's defaults. A Sentinel always rewrites the file it
		// read them from, where their line is, and that case passed.
		return
	}
	fresh := RewriteBytes(nil, c1.Server, c1.Sentinel, RewriteOptions{Cwd: cwd})
	c3, err := ParseWith(testFile, fresh, nil, Options{Cwd: cwd})
	if err != nil {
		t.Fatalf("%q: parse of the fresh rewrite: %v\n%s", line, err, fresh)
	}
	if !reflect.DeepEqual(c1.Server, c3.Server) {
		t.Fatalf("%q: fresh rewrite lost it:\n%s\nwas %+v\nnow %+v", line, fresh, c1.Server, c3.Server)
	}
	if d.rewriteDef != "" {
		def = []string{d.rewriteDef}
	}
	written := bytes.Contains(fresh, []byte("\n"+d.name+" "))
	if want := !slices.Equal(words, def) && !(d.dropDefault && atDefault); written != want {
		t.Errorf("%q: written into an empty file = %v, want %v:\n%s", line, written, want, fresh)
	}
}

// TestSentinelTableRoundTrip walks the sentinel directive table: every
// directive, with non-default values, goes through parse → rewrite →
// parse, its lines in place over the original file and appended to an
// empty one.
func TestSentinelTableRoundTrip(t *testing.T) {
	cwd := t.TempDir()
	script := filepath.Join(cwd, "script.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	samples := map[string][]string{
		"myid":                            {id1},
		"deny-scripts-reconfig":           {"no", "yes"},
		"resolve-hostnames":               {"yes", "no"},
		"announce-hostnames":              {"yes", "no"},
		"monitor":                         {"m 10.0.0.1 6379 2", "m ::1 1 7"},
		"down-after-milliseconds":         {"m 1500"},
		"failover-timeout":                {"m 60000"},
		"parallel-syncs":                  {"m 3"},
		"notification-script":             {"m " + script},
		"client-reconfig-script":          {"m " + script},
		"auth-pass":                       {`m "p w"`},
		"auth-user":                       {"m admin"},
		"master-reboot-down-after-period": {"m 1000"},
		"config-epoch":                    {"m 9"},
		"leader-epoch":                    {"m 8"},
		"leases-granted":                  {"m yes"},
		"known-replica":                   {"m 10.0.0.2 6380", "m ::1 6381"},
		"known-sentinel":                  {"m 10.0.0.5 26379 " + id2},
		"rename-command":                  {"m CONFIG cfg", `m slaveof ""`},
		"current-epoch":                   {"12"},
		"announce-ip":                     {"1.2.3.4", `"a b"`},
		"announce-port":                   {"26000"},
		"sentinel-user":                   {"su"},
		"sentinel-pass":                   {`"s p"`},
		"proxy":                           {"m 127.0.0.1 6380", "m ::1 6380"},
		"proxy-fence-after":               {"m 1500"},
		"proxy-hold":                      {"m 0", "m 250"},
		"proxy-fencing":                   {"m no"},
		"proxy-protected-mode":            {"m no"},
		"proxy-replicas":                  {"m 127.0.0.1 6381", "m ::1 6381"},
		"proxy-replica-max-lag":           {"m 0", "m 3000"},
		"proxy-replicas-priority-zero":    {"m no"},
		"proxy-replicas-fallback":         {"m no"},
		"forget-replica-after":            {"m 5000"},
		"voters":                          {"m 3"},
		"forget-sentinel-after":           {"m 5000"},
		"state-config-file":               {"/nonexistent-go-sentinel/state.conf", "state.conf"},
		"command-surface":                 {"7.0", "7.2"},
	}
	dirLine := "dir " + splitargs.Repr(cwd) + "\n"
	const mon = "sentinel monitor m 10.0.0.1 6379 2\n"
	for i := range sentinelDirectives {
		d := &sentinelDirectives[i]
		t.Run(d.name, func(t *testing.T) {
			values, ok := samples[d.name]
			if !ok {
				t.Fatalf("no samples for sentinel %s", d.name)
			}
			names := []string{d.name}
			if d.alias != "" {
				names = append(names, d.alias)
			}
			for _, name := range names {
				for _, v := range values {
					line := "sentinel " + name + " " + v
					text := dirLine + line + "\n"
					if d.name != "monitor" {
						text = dirLine + mon + line + "\n"
					}
					c1, _, out := roundTripLines(t, cwd, text)
					// In place: the line (in canonical form) stands where
					// it was.
					want := "sentinel " + name + " "
					if name == d.alias && !d.keepAlias {
						want = "sentinel " + d.name + " "
					}
					if !strings.Contains(out, want) {
						t.Errorf("%q: rewritten file lacks %q:\n%s", line, want, out)
					}
					// Into an empty file.
					fresh := RewriteBytes(nil, c1.Server, c1.Sentinel, RewriteOptions{Cwd: cwd})
					c3, err := ParseWith(testFile, fresh, nil, Options{Cwd: cwd})
					if err != nil || !reflect.DeepEqual(c1.Sentinel, c3.Sentinel) {
						t.Fatalf("%q: fresh rewrite: %v\n%s\nwas %+v\nnow %+v", line, err, fresh, c1.Sentinel, c3.Sentinel)
					}
				}
			}
		})
	}
}

// TestDirectiveErrors pins the message of a bad line of every directive
// go-sentinel honours (Redis's text for Redis's directives), with the
// file:line and the quoted line the error carries.
func TestDirectiveErrors(t *testing.T) {
	const wrongArgs = "wrong number of arguments"
	tests := map[string]struct{ line, msg string }{
		"port":                      {"port 65536", "argument must be between 0 and 65535 inclusive"},
		"bind":                      {"bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", "Too many bind addresses specified."},
		"bind-source-addr":          {"bind-source-addr a b", wrongArgs},
		"protected-mode":            {"protected-mode 1", "argument must be 'yes' or 'no'"},
		"daemonize":                 {"daemonize true", "argument must be 'yes' or 'no'"},
		"supervised":                {"supervised yes", "argument(s) must be one of the following: upstart, systemd, auto, no"},
		"pidfile":                   {"pidfile", wrongArgs},
		"logfile":                   {"logfile a b", wrongArgs},
		"loglevel":                  {"loglevel info", "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"},
		"log-format":                {"log-format logfmt", "argument(s) must be one of the following: redis, json"},
		"dir":                       {"dir /nonexistent/go-sentinel", "No such file or directory"},
		"requirepass":               {"requirepass a b", wrongArgs},
		"aclfile":                   {"aclfile", wrongArgs},
		"acllog-max-len":            {"acllog-max-len -1", "argument must be between 0 and 9223372036854775807 inclusive"},
		"tls-port":                  {"tls-port 65536", "argument must be between 0 and 65535 inclusive"},
		"tls-cert-file":             {"tls-cert-file a b", wrongArgs},
		"tls-key-file":              {"tls-key-file a b", wrongArgs},
		"tls-key-file-pass":         {"tls-key-file-pass a b", wrongArgs},
		"tls-client-cert-file":      {"tls-client-cert-file a b", wrongArgs},
		"tls-client-key-file":       {"tls-client-key-file a b", wrongArgs},
		"tls-client-key-file-pass":  {"tls-client-key-file-pass a b", wrongArgs},
		"tls-dh-params-file":        {"tls-dh-params-file a b", wrongArgs},
		"tls-ca-cert-file":          {"tls-ca-cert-file a b", wrongArgs},
		"tls-ca-cert-dir":           {"tls-ca-cert-dir a b", wrongArgs},
		"tls-protocols":             {"tls-protocols TLSv1.2 TLSv1.3", wrongArgs},
		"tls-ciphers":               {"tls-ciphers a b", wrongArgs},
		"tls-ciphersuites":          {"tls-ciphersuites a b", wrongArgs},
		"tls-prefer-server-ciphers": {"tls-prefer-server-ciphers on", "argument must be 'yes' or 'no'"},
		"tls-replication":           {"tls-replication 0", "argument must be 'yes' or 'no'"},
		"tls-auth-clients":          {"tls-auth-clients required", "argument(s) must be one of the following: no, yes, optional"},
		"unixsocket":                {"unixsocket a b", wrongArgs},
		"unixsocketperm":            {"unixsocketperm 0800", "argument couldn't be parsed as an octal number"},
		"maxclients":                {"maxclients 4294967296", "argument must be between 1 and 4294967295 inclusive"},
		"timeout":                   {"timeout 1.5", "argument couldn't be parsed into an integer"},
		"tcp-keepalive":             {"tcp-keepalive -1", "argument must be between 0 and 2147483647 inclusive"},
		"tcp-backlog":               {"tcp-backlog 2147483648", "argument must be between 0 and 2147483647 inclusive"},
		"hz":                        {"hz ten", "argument couldn't be parsed into an integer"},
		"syslog-enabled":            {"syslog-enabled", wrongArgs},
		"syslog-ident":              {"syslog-ident a b", wrongArgs},
		"syslog-facility":           {"syslog-facility local8", "argument(s) must be one of the following: user, local0, local1, local2, local3, local4, local5, local6, local7"},
		"metrics-addr":              {"metrics-addr 9121", msgMetricsAddr},
		"include":                   {"include a b", msgBadDirective},
		"rename-command":            {"rename-command nosuch x", "No such command in rename-command"},
		"user":                      {"user", msgBadDirective},
		"loadmodule":                {"loadmodule", msgBadDirective},
	}
	// Every directive that sets something has a case.
	for i := range directiveTable {
		d := &directiveTable[i]
		if _, ok := tests[d.name]; !ok && (d.get != nil || d.kind == kindLoader) && d.name != "sentinel" {
			t.Errorf("no error case for %s", d.name)
		}
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			// The bad line is the file's third line.
			e := parseError(t, "", "# comment\nport 26380\n  "+tt.line+"  \n")
			want := "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n" +
				"Reading the configuration file, at line 3\n" +
				">>> '" + tt.line + "'\n" + tt.msg + "\n"
			if e.Error() != want || e.Position() != testFile+":3" || e.Msg != tt.msg {
				t.Fatalf("got %s\n%q\nwant\n%q", e.Position(), e.Error(), want)
			}
		})
	}
}

// TestDirectiveErrorPositions pins where an error is reported: in an
// included file at its own line, and in the lines made from command-line
// arguments after the file's.
func TestDirectiveErrorPositions(t *testing.T) {
	dir := t.TempDir()
	inc := filepath.Join(dir, "inc.conf")
	if err := os.WriteFile(inc, []byte("\n\nlog-format JSON\nmetrics-addr :0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		args       []string
		pos, quote string
		msg        string
	}{
		{"included file", "port 1\ninclude inc.conf\n", nil, inc + ":4", "metrics-addr :0", msgMetricsAddr},
		{"argument", "port 1\n", []string{"--log-format", "text"}, testFile + ":3", `log-format "text"`, "argument(s) must be one of the following: redis, json"},
		{"extension arity", "metrics-addr a b\n", nil, testFile + ":1", "metrics-addr a b", "wrong number of arguments"},
		{"unknown", "\nnosuch-directive 1\n", nil, testFile + ":2", "nosuch-directive 1", msgBadDirective},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseError(t, dir, tt.text, tt.args...)
			if e.Position() != tt.pos || e.Text != tt.quote || e.Msg != tt.msg ||
				!strings.Contains(e.Error(), "\n>>> '"+tt.quote+"'\n"+tt.msg+"\n") {
				t.Fatalf("got %s %q", e.Position(), e.Error())
			}
		})
	}
}

// TestExtensionDirectives checks log-format and metrics-addr: parsed
// into Server, off by default, written by the rewrite once set.
func TestExtensionDirectives(t *testing.T) {
	d := DefaultServer()
	if d.LogFormat != "redis" || d.MetricsAddr != "" {
		t.Fatalf("defaults: log-format %q metrics-addr %q", d.LogFormat, d.MetricsAddr)
	}
	c := mustParse(t, "log-format JSON\nmetrics-addr [::1]:9121\n")
	if c.Server.LogFormat != LogFormatJSON || c.Server.MetricsAddr != "[::1]:9121" || len(c.Ignored) != 0 {
		t.Fatalf("parsed %q %q, ignored %v", c.Server.LogFormat, c.Server.MetricsAddr, c.Ignored)
	}
	out := string(RewriteBytes(nil, c.Server, c.Sentinel, RewriteOptions{Cwd: "/data"}))
	if !strings.Contains(out, "\nlog-format json\n") || !strings.Contains(out, "\nmetrics-addr \"[::1]:9121\"\n") {
		t.Errorf("rewrite:\n%s", out)
	}
	// At their defaults they are not written; a default line in the file
	// stays for log-format and goes for metrics-addr (unset).
	out = string(RewriteBytes([]byte("log-format redis\nmetrics-addr \"\"\n"), DefaultServer(), c.Sentinel, RewriteOptions{Cwd: "/data"}))
	if !strings.HasPrefix(out, "log-format redis\n") || strings.Contains(out, "metrics-addr") {
		t.Errorf("rewrite at defaults:\n%s", out)
	}
	var names []string
	for _, info := range Directives() {
		if info.Extension {
			names = append(names, info.Name)
		}
	}
	if !reflect.DeepEqual(names, []string{"log-format", "metrics-addr"}) {
		t.Errorf("extensions %v", names)
	}
}

// TestLoglevelValuesAreTheLoggers checks that the values loglevel accepts
// are the logging package's level names, and that only loglevel is exposed
// by SENTINEL CONFIG GET/SET.
func TestLoglevelValuesAreTheLoggers(t *testing.T) {
	var runtime []string
	for _, info := range Directives() {
		if info.Runtime {
			runtime = append(runtime, info.Name)
		}
		if info.Name != "loglevel" {
			continue
		}
		if info.Default != logging.LevelNotice.String() {
			t.Errorf("default %q", info.Default)
		}
		for _, v := range info.Values {
			if lv, err := logging.ParseLevel(v); err != nil || lv.String() != v {
				t.Errorf("loglevel %q: logging says %v, %v", v, lv, err)
			}
		}
		if len(info.Values) != 5 {
			t.Errorf("values %v", info.Values)
		}
	}
	if !reflect.DeepEqual(runtime, []string{"loglevel"}) {
		t.Errorf("runtime directives %v", runtime)
	}
}

// TestDirectiveTableShape checks the table's invariants: names are unique
// (init panics otherwise), lower-case, and every honoured directive's
// default parses to itself.
func TestDirectiveTableShape(t *testing.T) {
	for i := range directiveTable {
		d := &directiveTable[i]
		if d.name != strings.ToLower(d.name) || d.alias != strings.ToLower(d.alias) {
			t.Errorf("%s: name not lower-case", d.name)
		}
		if d.set == nil {
			continue
		}
		if msg := d.validate(d.defaultWords()); msg != "" {
			t.Errorf("%s: default %q invalid: %s", d.name, d.def, msg)
		}
		var s Server
		d.set(&s, d.defaultWords())
		if got := d.get(&s); !slices.Equal(got, d.defaultWords()) {
			t.Errorf("%s: default %q reads back as %q", d.name, d.def, got)
		}
	}
	var e *Error
	if _, err := Parse(testFile, []byte("hz x"), nil); !errors.As(err, &e) {
		t.Errorf("Parse error %T", err)
	}
}

// TestExampleConfig parses configs/sentinel.conf.example and checks that
// it documents every go-sentinel extension, in a comment since Redis
// refuses them.
func TestExampleConfig(t *testing.T) {
	data, err := os.ReadFile("../../configs/sentinel.conf.example")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "\ndir /tmp\n", "\ndir "+t.TempDir()+"\n", 1)
	if _, err := ParseWith("/etc/go-sentinel/sentinel.conf", []byte(text), nil, Options{Cwd: "/"}); err != nil {
		t.Fatalf("example does not parse: %v", err)
	}
	for _, d := range Directives() {
		if !d.Extension {
			continue
		}
		line := "\n# " + d.Name + " " + splitargs.Repr(d.Default) + "\n"
		if d.Default != "" {
			line = "\n# " + d.Name + " " + d.Default + "\n"
		}
		if !strings.Contains(text, line) {
			t.Errorf("example lacks %q", line)
		}
		// The commented line itself parses.
		if _, err := ParseWith(testFile, []byte(strings.TrimPrefix(strings.TrimSpace(line), "# ")), nil, Options{Cwd: "/"}); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
}
