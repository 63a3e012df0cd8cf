package config

import (
	"net"
	"slices"
	"strconv"

	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// directiveTable is the directive table: every directive a config file may
// hold. The directives go-sentinel honours come first, in the order the
// rewrite writes them (and Format shows them); then the lines Redis's
// loader handles itself; then the redis.conf directives that are accepted
// and ignored, and the deprecated ones.
var directiveTable = slices.Concat(serverDirectives, loaderDirectives, ignoredDirectives, deprecatedDirectives)

// serverDirectives are the generic directives that set a Server field.
var serverDirectives = []directive{
	intDir("port", "", 0, 65535, 0).
		intField(func(s *Server) *int { return &s.Port }, strconv.Itoa(DefaultPort)).
		rewriteDefault(strconv.Itoa(redisDefaultPort)),
	bindDirective(),
	strDir("bind-source-addr", "").stringField(func(s *Server) *string { return &s.BindSourceAddr }, "", true),
	boolDir("protected-mode", "").
		boolField(func(s *Server) *bool { return &s.ProtectedMode }, "no").
		rewriteDefault(settings.YesNoText(redisDefaultProtectedMode)),
	boolDir("daemonize", "").boolField(func(s *Server) *bool { return &s.Daemonize }, "no"),
	enumDir("supervised", "upstart", "systemd", "auto", "no").
		enumField(func(s *Server) *string { return &s.Supervised }, DefaultSupervised),
	strDir("pidfile", "").stringField(func(s *Server) *string { return &s.Pidfile }, "", true),
	strDir("logfile", "").stringField(func(s *Server) *string { return &s.Logfile }, "", false),
	// "nothing" is the 7.2 spelling of "no logging"; accepted as an
	// extension. SENTINEL CONFIG GET/SET read and change it (7.2).
	enumDir("loglevel", "debug", "verbose", "notice", "warning", "nothing").
		enumField(func(s *Server) *string { return &s.Loglevel }, DefaultLoglevel).
		exposed(),
	enumDir("log-format", LogFormatRedis, LogFormatJSON).
		enumField(func(s *Server) *string { return &s.LogFormat }, DefaultLogFormat).
		goSentinel(),
	dirDirective(),
	strDir("requirepass", "").secretField(func(s *Server) *string { return &s.Requirepass }),
	strDir("aclfile", "").stringField(func(s *Server) *string { return &s.Aclfile }, "", false),
	intDir("acllog-max-len", "", 0, longMax, 0).
		intField(func(s *Server) *int { return &s.AcllogMaxLen }, strconv.Itoa(DefaultAcllogMaxLen)),

	intDir("tls-port", "", 0, 65535, 0).intField(func(s *Server) *int { return &s.TLSPort }, "0"),
	strDir("tls-cert-file", "").stringField(func(s *Server) *string { return &s.TLSCertFile }, "", true),
	strDir("tls-key-file", "").stringField(func(s *Server) *string { return &s.TLSKeyFile }, "", true),
	strDir("tls-key-file-pass", "").secretField(func(s *Server) *string { return &s.TLSKeyFilePass }),
	strDir("tls-client-cert-file", "").stringField(func(s *Server) *string { return &s.TLSClientCertFile }, "", true),
	strDir("tls-client-key-file", "").stringField(func(s *Server) *string { return &s.TLSClientKeyFile }, "", true),
	strDir("tls-client-key-file-pass", "").secretField(func(s *Server) *string { return &s.TLSClientKeyFilePass }),
	strDir("tls-dh-params-file", "").stringField(func(s *Server) *string { return &s.TLSDHParamsFile }, "", true),
	strDir("tls-ca-cert-file", "").stringField(func(s *Server) *string { return &s.TLSCACertFile }, "", true),
	strDir("tls-ca-cert-dir", "").stringField(func(s *Server) *string { return &s.TLSCACertDir }, "", true),
	strDir("tls-protocols", "").stringField(func(s *Server) *string { return &s.TLSProtocols }, "", true),
	strDir("tls-ciphers", "").stringField(func(s *Server) *string { return &s.TLSCiphers }, "", true),
	strDir("tls-ciphersuites", "").stringField(func(s *Server) *string { return &s.TLSCiphersuites }, "", true),
	boolDir("tls-prefer-server-ciphers", "").boolField(func(s *Server) *bool { return &s.TLSPreferServerCiphers }, "no"),
	boolDir("tls-replication", "").boolField(func(s *Server) *bool { return &s.TLSReplication }, "no"),
	enumDir("tls-auth-clients", "no", "yes", "optional").
		enumField(func(s *Server) *string { return &s.TLSAuthClients }, DefaultTLSAuthClients),

	strDir("unixsocket", "").stringField(func(s *Server) *string { return &s.Unixsocket }, "", true),
	uintDir("unixsocketperm", "", 0, 0o777, numOctal).octalField(func(s *Server) *uint32 { return &s.Unixsocketperm }, "0"),
	uintDir("maxclients", "", 1, uintMax, 0).
		intField(func(s *Server) *int { return &s.Maxclients }, strconv.Itoa(DefaultMaxclients)),
	intDir("timeout", "", 0, intMax, 0).intField(func(s *Server) *int { return &s.Timeout }, "0"),
	intDir("tcp-keepalive", "", 0, intMax, 0).
		intField(func(s *Server) *int { return &s.TCPKeepalive }, strconv.Itoa(DefaultTCPKeepalive)),
	intDir("tcp-backlog", "", 0, intMax, 0).
		intField(func(s *Server) *int { return &s.TCPBacklog }, strconv.Itoa(DefaultTCPBacklog)),
	intDir("hz", "", 0, intMax, 0).
		intField(func(s *Server) *int { return &s.Hz }, strconv.Itoa(DefaultHz)).
		clamp(func(s *Server) *int { return &s.Hz }, minHz, maxHz),
	boolDir("syslog-enabled", "").boolField(func(s *Server) *bool { return &s.SyslogEnabled }, "no"),
	strDir("syslog-ident", "").stringField(func(s *Server) *string { return &s.SyslogIdent }, DefaultSyslogIdent, false),
	enumDir("syslog-facility", "user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7").
		enumField(func(s *Server) *string { return &s.SyslogFacility }, DefaultSyslogFacility),
	withCheck(strDir("metrics-addr", ""), checkMetricsAddr).
		stringField(func(s *Server) *string { return &s.MetricsAddr }, "", true).
		goSentinel(),
}

// loaderDirectives are the lines loadServerConfigFromString handles itself
// rather than through its config table. Of these the rewrite writes the
// users (and the sentinel lines); the others are kept as they are.
var loaderDirectives = []directive{
	loaderDir("include", 2, func(p *parser, l Line, args []string, depth int) (string, error) {
		return "", p.include(l.File, l.Num, l.Text, args[0], depth)
	}),
	renameDirective(),
	userDirective(),
	loaderDir("loadmodule", -2, func(p *parser, l Line, _ []string, _ int) (string, error) {
		p.cfg.Ignored = append(p.cfg.Ignored, l)
		return "", nil
	}),
	sentinelLines(),
}

// Binding modifiers.

// rewriteDefault sets the default the rewrite compares with.
func (d directive) rewriteDefault(v string) directive { d.rewriteDef = v; return d }

// exposed marks a directive SENTINEL CONFIG GET/SET reads and changes.
func (d directive) exposed() directive { d.runtime = true; return d }

// goSentinel marks a go-sentinel extension.
func (d directive) goSentinel() directive { d.extension = true; return d }

// secretField binds a password: a nullable string Format masks.
func (d directive) secretField(f func(*Server) *string) directive {
	d = d.stringField(f, "", true)
	d.secret = true
	return d
}

// bindDirective is `bind`: nil in Server means the default list, `bind ""`
// is an empty list (no TCP address), and the default has no line.
func bindDirective() directive {
	d := specialDir("bind", "", true, checkBind)
	d.def = "* -::*"
	d.dropDefault = true
	d.set = func(s *Server, a []string) {
		if len(a) == 1 && a[0] == "" {
			s.Bind = []string{}
		} else {
			s.Bind = slices.Clone(a)
		}
	}
	d.get = func(s *Server) []string {
		if s.Bind == nil {
			return DefaultBind
		}
		return s.Bind
	}
	return d
}

// dirDirective is `dir`: the parser changes its virtual working directory
// (the directory must exist, as chdir requires); the rewrite writes the
// absolute working directory of the process, as Redis does.
func dirDirective() directive {
	d := strDir("dir", "")
	d.apply = func(p *parser, _ Line, args []string, _ int) (string, error) {
		return p.chdir(args[0]), nil
	}
	d.get = func(s *Server) []string { return []string{s.Dir} }
	d.rewrite = func(st *rewriteState, in *rewriteInput) {
		cwd := in.cwd()
		if cwd == "" {
			st.markProcessed("dir")
			return
		}
		st.rewriteLine("dir", "dir "+splitargs.Repr(cwd), true)
	}
	return d
}

// renameDirective is the generic `rename-command old new`, checked against
// the Sentinel's command table; its lines are kept by the rewrite.
func renameDirective() directive {
	d := loaderDir("rename-command", 3, func(p *parser, _ Line, args []string, _ int) (string, error) {
		if msg := p.renames.rename(args[0], args[1]); msg != "" {
			return msg, nil
		}
		p.cfg.Server.RenameCommands = append(p.cfg.Server.RenameCommands, settings.Rename{Command: args[0], Renamed: args[1]})
		return "", nil
	})
	d.each = func(s *Server) [][]string {
		out := make([][]string, len(s.RenameCommands))
		for i, r := range s.RenameCommands {
			out[i] = []string{r.Command, r.Renamed}
		}
		return out
	}
	return d
}

// userDirective is `user <name> <rules...>`. The rewrite writes every user
// unless an aclfile holds them (then the file's user lines are dropped).
func userDirective() directive {
	d := loaderDir("user", -2, func(p *parser, l Line, args []string, _ int) (string, error) {
		p.cfg.Server.Users = append(p.cfg.Server.Users, slices.Clone(args))
		p.cfg.UserLines = append(p.cfg.UserLines, l)
		return "", nil
	})
	d.each = func(s *Server) [][]string { return s.Users }
	d.mask = maskUserRules
	d.rewrite = func(st *rewriteState, in *rewriteInput) {
		if in.srv.Aclfile == "" {
			for _, u := range in.srv.Users {
				st.rewriteLine("user", "user "+quoteWords(u), true)
			}
		}
		st.markProcessed("user")
	}
	return d
}

// sentinelLines is a `sentinel ...` line: queued, and applied after the
// whole input was read (see sentinelDirectives for its own grammar). A
// bare `sentinel` line (what --sentinel becomes) is ignored.
func sentinelLines() directive {
	d := loaderDir("sentinel", 0, func(p *parser, l Line, args []string, _ int) (string, error) {
		if len(args) > 0 {
			p.queue = append(p.queue, queuedLine{file: l.File, num: l.Num, text: l.Text, argv: args, state: p.state})
		}
		return "", nil
	})
	d.rewrite = func(st *rewriteState, in *rewriteInput) { st.sentinel(in.p, in.opts) }
	return d
}

// checkMetricsAddr validates metrics-addr: "" (off) or host:port, where
// the host may be empty (every address) or a bracketed IPv6 address.
func checkMetricsAddr(v string) string {
	if v == "" {
		return ""
	}
	_, port, err := net.SplitHostPort(v)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n < 1 || n > 65535 || port[0] == '+' {
		return msgMetricsAddr
	}
	return ""
}

// msgMetricsAddr is the message of a bad metrics-addr.
const msgMetricsAddr = `argument must be host:port, with a port between 1 and 65535, or "" (off)`
