package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

const testFile = "/etc/go-sentinel/test.conf"

// mustParse parses text (plus args) with a fresh temporary directory as the
// working directory.
func mustParse(t *testing.T, text string, args ...string) *Config {
	t.Helper()
	c, err := ParseWith(testFile, []byte(text), args, Options{Cwd: t.TempDir()})
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return c
}

// parseError parses text in dir and returns the *Error it must fail with.
func parseError(t *testing.T, dir, text string, args ...string) *Error {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	c, err := ParseWith(testFile, []byte(text), args, Options{Cwd: dir})
	if err == nil {
		t.Fatalf("parse %q: no error, got %+v", text, c)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("parse %q: error %v (%T) is not an *Error", text, err, err)
	}
	return e
}

func TestParseDefaults(t *testing.T) {
	c := mustParse(t, "")
	if !reflect.DeepEqual(c.Server, DefaultServer()) {
		t.Errorf("Server = %+v, want defaults %+v", c.Server, DefaultServer())
	}
	want := settings.Persisted{DenyScriptsReconfig: true, Masters: []settings.MasterSpec{}}
	if !reflect.DeepEqual(c.Sentinel, want) {
		t.Errorf("Sentinel = %+v, want %+v", c.Sentinel, want)
	}
	if c.File != testFile || c.WorkDir != "" || len(c.Ignored) != 0 {
		t.Errorf("File %q WorkDir %q Ignored %v", c.File, c.WorkDir, c.Ignored)
	}
	d := DefaultServer()
	if d.Port != 26379 || d.ProtectedMode || d.Supervised != "no" || d.Loglevel != "notice" ||
		d.Maxclients != 10000 || d.TCPKeepalive != 300 || d.Hz != 10 || d.TLSAuthClients != "yes" {
		t.Errorf("DefaultServer() = %+v", d)
	}
}

func TestParseServerDirectives(t *testing.T) {
	tests := []struct {
		line string
		mod  func(s *Server)
	}{
		{"port 26380", func(s *Server) { s.Port = 26380 }},
		{"port 0", func(s *Server) { s.Port = 0 }},
		{"PORT 7000", func(s *Server) { s.Port = 7000 }},
		{"bind 127.0.0.1 ::1", func(s *Server) { s.Bind = []string{"127.0.0.1", "::1"} }},
		{`bind "127.0.0.1 ::1"`, func(s *Server) { s.Bind = []string{"127.0.0.1", "::1"} }},
		{`bind ""`, func(s *Server) { s.Bind = []string{} }},
		{"bind-source-addr 10.0.0.5", func(s *Server) { s.BindSourceAddr = "10.0.0.5" }},
		{"protected-mode yes", func(s *Server) { s.ProtectedMode = true }},
		{"protected-mode NO", func(s *Server) { s.ProtectedMode = false }},
		{"daemonize yes", func(s *Server) { s.Daemonize = true }},
		{"supervised systemd", func(s *Server) { s.Supervised = "systemd" }},
		{"supervised AUTO", func(s *Server) { s.Supervised = "auto" }},
		{"supervised upstart", func(s *Server) { s.Supervised = "upstart" }},
		{"pidfile /run/s.pid", func(s *Server) { s.Pidfile = "/run/s.pid" }},
		{`logfile "log file.txt"`, func(s *Server) { s.Logfile = "log file.txt" }},
		{`logfile ""`, func(s *Server) { s.Logfile = "" }},
		{"loglevel debug", func(s *Server) { s.Loglevel = "debug" }},
		{"loglevel Verbose", func(s *Server) { s.Loglevel = "verbose" }},
		{"loglevel warning", func(s *Server) { s.Loglevel = "warning" }},
		{"loglevel nothing", func(s *Server) { s.Loglevel = "nothing" }},
		{"requirepass 's3cr3t pass'", func(s *Server) { s.Requirepass = "s3cr3t pass" }},
		{"user default on nopass ~* &* +@all", func(s *Server) { s.Users = [][]string{{"default", "on", "nopass", "~*", "&*", "+@all"}} }},
		{"aclfile /etc/users.acl", func(s *Server) { s.Aclfile = "/etc/users.acl" }},
		{"acllog-max-len 64", func(s *Server) { s.AcllogMaxLen = 64 }},
		{"tls-port 26380", func(s *Server) { s.TLSPort = 26380 }},
		{"tls-cert-file /t/c.crt", func(s *Server) { s.TLSCertFile = "/t/c.crt" }},
		{"tls-key-file /t/c.key", func(s *Server) { s.TLSKeyFile = "/t/c.key" }},
		{"tls-key-file-pass pw", func(s *Server) { s.TLSKeyFilePass = "pw" }},
		{"tls-client-cert-file /t/cc.crt", func(s *Server) { s.TLSClientCertFile = "/t/cc.crt" }},
		{"tls-client-key-file /t/cc.key", func(s *Server) { s.TLSClientKeyFile = "/t/cc.key" }},
		{"tls-client-key-file-pass pw2", func(s *Server) { s.TLSClientKeyFilePass = "pw2" }},
		{"tls-dh-params-file /t/dh", func(s *Server) { s.TLSDHParamsFile = "/t/dh" }},
		{"tls-ca-cert-file /t/ca.crt", func(s *Server) { s.TLSCACertFile = "/t/ca.crt" }},
		{"tls-ca-cert-dir /t/ca", func(s *Server) { s.TLSCACertDir = "/t/ca" }},
		{`tls-protocols "TLSv1.2 TLSv1.3"`, func(s *Server) { s.TLSProtocols = "TLSv1.2 TLSv1.3" }},
		{"tls-ciphers DEFAULT", func(s *Server) { s.TLSCiphers = "DEFAULT" }},
		{"tls-ciphersuites TLS_AES_256_GCM_SHA384", func(s *Server) { s.TLSCiphersuites = "TLS_AES_256_GCM_SHA384" }},
		{"tls-prefer-server-ciphers yes", func(s *Server) { s.TLSPreferServerCiphers = true }},
		{"tls-replication yes", func(s *Server) { s.TLSReplication = true }},
		{"tls-auth-clients optional", func(s *Server) { s.TLSAuthClients = "optional" }},
		{"tls-auth-clients no", func(s *Server) { s.TLSAuthClients = "no" }},
		{"unixsocket /tmp/s.sock", func(s *Server) { s.Unixsocket = "/tmp/s.sock" }},
		{"unixsocketperm 700", func(s *Server) { s.Unixsocketperm = 0o700 }},
		{"maxclients 128", func(s *Server) { s.Maxclients = 128 }},
		{"timeout 60", func(s *Server) { s.Timeout = 60 }},
		{"tcp-keepalive 0", func(s *Server) { s.TCPKeepalive = 0 }},
		{"tcp-backlog 1024", func(s *Server) { s.TCPBacklog = 1024 }},
		{"hz 100", func(s *Server) { s.Hz = 100 }},
		{"hz 0", func(s *Server) { s.Hz = 1 }},
		{"hz 1000", func(s *Server) { s.Hz = 500 }},
		{"syslog-enabled yes", func(s *Server) { s.SyslogEnabled = true }},
		{"syslog-ident sentinel", func(s *Server) { s.SyslogIdent = "sentinel" }},
		{"syslog-facility local7", func(s *Server) { s.SyslogFacility = "local7" }},
		{"rename-command SHUTDOWN nope", func(s *Server) { s.RenameCommands = []settings.Rename{{Command: "SHUTDOWN", Renamed: "nope"}} }},
		{`rename-command acl ""`, func(s *Server) { s.RenameCommands = []settings.Rename{{Command: "acl", Renamed: ""}} }},
		{"  port 1234  ", func(s *Server) { s.Port = 1234 }},
		{"\tport\t1234\r", func(s *Server) { s.Port = 1234 }},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			c := mustParse(t, tt.line+"\n")
			want := DefaultServer()
			tt.mod(&want)
			if !reflect.DeepEqual(c.Server, want) {
				t.Fatalf("Server =\n%+v\nwant\n%+v", c.Server, want)
			}
			if len(c.Ignored) != 0 {
				t.Fatalf("Ignored = %v", c.Ignored)
			}
		})
	}
}

func TestParseLastValueWins(t *testing.T) {
	c := mustParse(t, "port 1\nport 2\nuser a on\nuser b off\n", "--port", "3")
	if c.Server.Port != 3 {
		t.Errorf("Port = %d, want 3", c.Server.Port)
	}
	if len(c.Server.Users) != 2 || c.Server.Users[1][0] != "b" || len(c.UserLines) != 2 || c.UserLines[1].Num != 4 {
		t.Errorf("Users = %v, UserLines = %v", c.Server.Users, c.UserLines)
	}
}

func TestParseIgnored(t *testing.T) {
	lines := []string{
		"repl-diskless-sync-delay 0",
		"enable-protected-configs yes",
		"enable-debug-command local",
		"tls-cluster yes",
		"latency-tracking-info-percentiles 50 99 99.9",
		`latency-tracking-info-percentiles ""`,
		"save 900 1 300 10",
		`save ""`,
		"appendonly no",
		"unixsocketperm 700",
		"slaveof 127.0.0.1 6379",
		"replicaof no one",
		"slave-read-only yes",
		"maxmemory 1gb",
		"maxmemory-clients 10%",
		"client-output-buffer-limit normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60",
		"oom-score-adj-values 0 200 800",
		"notify-keyspace-events KEA",
		"shutdown-on-sigterm save now",
		"list-max-ziplist-entries 512",
		"lua-replicate-commands yes",
		"loadmodule /x/y.so a b",
		"mymodule.option value",
		"databases 16",
		"io-threads 4",
		"dbfilename dump.rdb",
		"always-show-logo yes",
		"set-proc-title yes",
		"proc-title-template \"{title} {listen-addr} {server-mode}\"",
		"syslog-facility local0",
	}
	text := "# leading comment\n" + strings.Join(lines, "\n")
	c := mustParse(t, text)
	// unixsocketperm and syslog-facility are Server fields, the rest is ignored.
	var got []string
	for _, l := range c.Ignored {
		got = append(got, l.Text)
		if l.File != testFile || l.Args[0] != strings.ToLower(strings.Fields(l.Text)[0]) {
			t.Errorf("ignored line %+v", l)
		}
	}
	var want []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "unixsocketperm") && !strings.HasPrefix(l, "syslog-facility") {
			want = append(want, l)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Ignored =\n%q\nwant\n%q", got, want)
	}
	if c.Ignored[0].Num != 2 {
		t.Errorf("first ignored line number = %d, want 2", c.Ignored[0].Num)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		args []string
		line int
		show string
		msg  string
	}{
		{"unbalanced", "port 1\nlogfile \"x", nil, 2, `logfile "x`, "Unbalanced quotes in configuration line"},
		{"quote followed by text", `port "1"x`, nil, 1, `port "1"x`, "Unbalanced quotes in configuration line"},
		{"bad directive", "# c\n\nfoo bar", nil, 3, "foo bar", "Bad directive or wrong number of arguments"},
		{"include arity", "include a b", nil, 1, "include a b", "Bad directive or wrong number of arguments"},
		{"rename-command arity", "rename-command ping", nil, 1, "rename-command ping", "Bad directive or wrong number of arguments"},
		{"user arity", "user", nil, 1, "user", "Bad directive or wrong number of arguments"},
		{"deprecated arity", "list-max-ziplist-entries 1 2", nil, 1, "list-max-ziplist-entries 1 2", "Bad directive or wrong number of arguments"},
		{"module config without value", "my.option", nil, 1, "my.option", "Module config specified without value"},
		{"port arity", "port 1 2", nil, 1, "port 1 2", "wrong number of arguments"},
		{"port missing", "port", nil, 1, "port", "wrong number of arguments"},
		{"port range", "port 65536", nil, 1, "port 65536", "argument must be between 0 and 65535 inclusive"},
		{"port negative", "port -1", nil, 1, "port -1", "argument must be between 0 and 65535 inclusive"},
		{"port not a number", "port abc", nil, 1, "port abc", "argument couldn't be parsed into an integer"},
		{"port leading zero", "port 0123", nil, 1, "port 0123", "argument couldn't be parsed into an integer"},
		{"port plus", "port +1", nil, 1, "port +1", "argument couldn't be parsed into an integer"},
		{"tls-port range", "tls-port 70000", nil, 1, "tls-port 70000", "argument must be between 0 and 65535 inclusive"},
		{"maxclients zero", "maxclients 0", nil, 1, "maxclients 0", "argument must be between 1 and 4294967295 inclusive"},
		{"maxclients negative", "maxclients -1", nil, 1, "maxclients -1", "argument must be between 1 and 4294967295 inclusive"},
		{"maxclients text", "maxclients abc", nil, 1, "maxclients abc", "argument couldn't be parsed into an integer"},
		{"timeout negative", "timeout -1", nil, 1, "timeout -1", "argument must be between 0 and 2147483647 inclusive"},
		{"unixsocketperm octal", "unixsocketperm 9", nil, 1, "unixsocketperm 9", "argument couldn't be parsed as an octal number"},
		{"unixsocketperm range", "unixsocketperm 1777", nil, 1, "unixsocketperm 1777", "argument must be between 0 and 777 inclusive"},
		{"maxmemory", "maxmemory 1tb", nil, 1, "maxmemory 1tb", "argument must be a memory value"},
		{"maxmemory-clients", "maxmemory-clients x%", nil, 1, "maxmemory-clients x%", "argument must be a memory or percent value"},
		{"maxmemory-clients percent", "maxmemory-clients 101%", nil, 1, "maxmemory-clients 101%", "percentage argument must be less or equal to 100"},
		{"yes no", "daemonize maybe", nil, 1, "daemonize maybe", "argument must be 'yes' or 'no'"},
		{"protected-mode", "protected-mode 1", nil, 1, "protected-mode 1", "argument must be 'yes' or 'no'"},
		{"tls-replication", "tls-replication on", nil, 1, "tls-replication on", "argument must be 'yes' or 'no'"},
		{"loglevel", "loglevel foo", nil, 1, "loglevel foo", "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"},
		{"supervised", "supervised yes", nil, 1, "supervised yes", "argument(s) must be one of the following: upstart, systemd, auto, no"},
		{"tls-auth-clients", "tls-auth-clients maybe", nil, 1, "tls-auth-clients maybe", "argument(s) must be one of the following: no, yes, optional"},
		{"enable-debug-command", "enable-debug-command always", nil, 1, "enable-debug-command always", "argument(s) must be one of the following: no, yes, local"},
		{"shutdown flags", "shutdown-on-sigint save nosave", nil, 1, "shutdown-on-sigint save nosave", "shutdown options SAVE and NOSAVE can't be used simultaneously"},
		{"save odd", "save 900", nil, 1, "save 900", "Invalid save parameters"},
		{"save zero seconds", "save 0 1", nil, 1, "save 0 1", "Invalid save parameters"},
		{"bind too many", "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", nil, 1, "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", "Too many bind addresses specified."},
		{"replicaof port", "replicaof 1.2.3.4 x", nil, 1, "replicaof 1.2.3.4 x", "Invalid master port"},
		{"replicaof arity", "replicaof 1.2.3.4", nil, 1, "replicaof 1.2.3.4", "wrong number of arguments"},
		{"percentiles", "latency-tracking-info-percentiles 50 x", nil, 1, "latency-tracking-info-percentiles 50 x", "Invalid latency-tracking-info-percentiles parameters"},
		{"percentiles range", "latency-tracking-info-percentiles 101", nil, 1, "latency-tracking-info-percentiles 101", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{"oom values", "oom-score-adj-values 0 1", nil, 1, "oom-score-adj-values 0 1", "wrong number of arguments"},
		{"oom range", "oom-score-adj-values 0 1 3000", nil, 1, "oom-score-adj-values 0 1 3000", "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
		{"cobl", "client-output-buffer-limit master 0 0 0", nil, 1, "client-output-buffer-limit master 0 0 0", "Invalid client class specified in buffer limit configuration."},
		{"cobl arity", "client-output-buffer-limit normal 0 0", nil, 1, "client-output-buffer-limit normal 0 0", "Wrong number of arguments in buffer limit configuration."},
		{"cobl values", "client-output-buffer-limit normal x 0 0", nil, 1, "client-output-buffer-limit normal x 0 0", "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{"keyspace events", "notify-keyspace-events KEQ", nil, 1, "notify-keyspace-events KEQ", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."},
		{"dbfilename", "dbfilename /x/dump.rdb", nil, 1, "dbfilename /x/dump.rdb", "dbfilename can't be a path, just a filename"},
		{"appendfilename", `appendfilename ""`, nil, 1, `appendfilename ""`, "appendfilename can't be empty"},
		{"hostname", "cluster-announce-hostname a_b", nil, 1, "cluster-announce-hostname a_b", "Hostnames may only contain alphanumeric characters, hyphens or dots"},
		{"rename unknown", "rename-command config foo", nil, 1, "rename-command config foo", "No such command in rename-command"},
		{"rename twice", "rename-command ping pong\nrename-command PING pung", nil, 2, "rename-command PING pung", "No such command in rename-command"},
		{"rename to existing", "rename-command ping INFO", nil, 1, "rename-command ping INFO", "Target command name already exists"},
		{"rename subcommand", "rename-command client|kill x", nil, 1, "rename-command client|kill x", "No such command in rename-command"},
		{"dir missing", "dir /nonexistent/go-sentinel", nil, 1, "dir /nonexistent/go-sentinel", "No such file or directory"},
		{"dir empty", `dir ""`, nil, 1, `dir ""`, "No such file or directory"},
		{"error in args", "port 1\n", []string{"--port", "x"}, 3, `port "x"`, "argument couldn't be parsed into an integer"},
		{"error in args no newline", "port 1", []string{"--port", "x"}, 2, `port "x"`, "argument couldn't be parsed into an integer"},
		{"error in args second line", "", []string{"--sentinel", "--nosuch", "1"}, 3, `nosuch "1"`, "Bad directive or wrong number of arguments"},
		{"generic error before sentinel error", "sentinel monitor m 1.2.3.4 1 0\nfoo", nil, 2, "foo", "Bad directive or wrong number of arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseError(t, "", tt.text, tt.args...)
			if e.Line != tt.line || e.Text != tt.show || e.Msg != tt.msg || e.File != testFile {
				t.Fatalf("got %s:%d %q %q, want line %d %q %q", e.File, e.Line, e.Text, e.Msg, tt.line, tt.show, tt.msg)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	e := parseError(t, "", "# comment\n  loglevel   foo  \n")
	want := "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n" +
		"Reading the configuration file, at line 2\n" +
		">>> 'loglevel   foo'\n" +
		"argument(s) must be one of the following: debug, verbose, notice, warning, nothing\n"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	if e := parseError(t, "", `port "1`); !errors.Is(e, splitargs.ErrUnbalancedQuotes) {
		t.Errorf("unbalanced quotes error does not wrap splitargs.ErrUnbalancedQuotes: %v", e)
	}
	if e.Position() != testFile+":2" {
		t.Errorf("Position() = %q", e.Position())
	}
	noLine := &Error{File: "/x.conf", Msg: "Can't open the log file: Permission denied"}
	if got := noLine.Error(); got != "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nCan't open the log file: Permission denied\n" {
		t.Errorf("Error() without line = %q", got)
	}
	if noLine.Position() != "/x.conf" {
		t.Errorf("Position() without line = %q", noLine.Position())
	}
}

func TestParseDir(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ParseWith(testFile, []byte("dir a\ndir ./b\n"), nil, Options{Cwd: base})
	if err != nil {
		t.Fatal(err)
	}
	realBase, _ := filepath.EvalSymlinks(base)
	if c.Server.Dir != "./b" || c.WorkDir != filepath.Join(realBase, "a", "b") {
		t.Errorf("Dir %q WorkDir %q", c.Server.Dir, c.WorkDir)
	}

	e := parseError(t, base, "dir file")
	if e.Msg != "Not a directory" || e.Line != 1 {
		t.Errorf("dir on a file: %q at %d", e.Msg, e.Line)
	}
	// The second relative dir is relative to the first one.
	e = parseError(t, base, "dir a\ndir a")
	if e.Msg != "No such file or directory" || e.Line != 2 {
		t.Errorf("relative dir: %q at %d", e.Msg, e.Line)
	}
}

func TestParseInclude(t *testing.T) {
	base := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(base, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("common.conf", "port 26390\nsentinel down-after-milliseconds m 5000\n")
	write("extra-1.conf", "loglevel debug\n")
	write("extra-2.conf", "timeout 7\n")
	write("bad.conf", "\nport x\n")
	write("loop.conf", "include loop.conf\n")

	c, err := ParseWith(testFile, []byte("include common.conf\ninclude extra-*.conf\ninclude none-*.conf\nsentinel monitor m 1.2.3.4 6379 1\n"), nil, Options{Cwd: base})
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.Port != 26390 || c.Server.Loglevel != "debug" || c.Server.Timeout != 7 {
		t.Errorf("included values not applied: %+v", c.Server)
	}
	if len(c.Sentinel.Masters) != 1 || c.Sentinel.Masters[0].DownAfterMs != 5000 {
		t.Errorf("included sentinel line not applied: %+v", c.Sentinel.Masters)
	}

	e := parseError(t, base, "include bad.conf")
	if e.File != filepath.Join(base, "bad.conf") || e.Line != 2 || e.Text != "port x" {
		t.Errorf("error in include: %+v", e)
	}
	e = parseError(t, base, "include missing.conf")
	if e.Line != 1 || !strings.Contains(e.Msg, "can't open config file") || !strings.Contains(e.Msg, "No such file or directory") {
		t.Errorf("missing include: %+v", e)
	}
	e = parseError(t, base, "include loop.conf")
	if !strings.Contains(e.Msg, "include nesting too deep") {
		t.Errorf("include loop: %+v", e)
	}
}

// TestParseDebianConfig parses Debian's stock /etc/redis/sentinel.conf (a
// copy in testdata, with its `dir` pointed at an existing directory).
func TestParseDebianConfig(t *testing.T) {
	data, err := os.ReadFile("testdata/debian-sentinel.conf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text := strings.Replace(string(data), "\ndir /var/lib/redis\n", "\ndir "+dir+"\n", 1)
	c, err := ParseWith("/etc/redis/sentinel.conf", []byte(text), nil, Options{Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Server
	if s.Port != 26379 || s.ProtectedMode || !s.Daemonize || s.Pidfile != "/run/sentinel/redis-sentinel.pid" ||
		s.Logfile != "/var/log/redis/redis-sentinel.log" || s.Dir != dir || s.AcllogMaxLen != 128 {
		t.Errorf("Server = %+v", s)
	}
	want := settings.Persisted{
		DenyScriptsReconfig: true,
		Masters: []settings.MasterSpec{
			settings.NewMasterSpec("mymaster", settings.Addr{Host: "127.0.0.1", Port: 6379}, 2),
		},
	}
	if !reflect.DeepEqual(c.Sentinel, want) {
		t.Errorf("Sentinel = %+v, want %+v", c.Sentinel, want)
	}
	if len(c.Ignored) != 0 {
		t.Errorf("Ignored = %v", c.Ignored)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.conf")
	content := "port 26399\ndir " + dir + "\nlogfile log.txt\nsentinel monitor m 127.0.0.1 6379 2\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, []string{"--sentinel", "--loglevel", "warning"})
	if err != nil {
		t.Fatal(err)
	}
	if c.File != path || c.Server.Port != 26399 || c.Server.Loglevel != "warning" || len(c.Sentinel.Masters) != 1 {
		t.Errorf("Load = %+v", c)
	}
	if _, err := os.Stat(filepath.Join(dir, "log.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load created the log file: %v", err)
	}

	if _, err := Load(filepath.Join(dir, "missing.conf"), nil); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v", err)
	}

	bad := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(bad, []byte("logfile /nonexistent/dir/log.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad, nil)
	var e *Error
	if !errors.As(err, &e) || e.Line != 0 || e.Msg != "Can't open the log file: No such file or directory" {
		t.Errorf("Load with a bad log file: %v", err)
	}
}

func TestLoadRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("s.conf", []byte("port 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load("s.conf", nil)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if c.File != filepath.Join(dir, "s.conf") && c.File != filepath.Join(real, "s.conf") {
		t.Errorf("File = %q, want an absolute path in %s", c.File, dir)
	}
}
