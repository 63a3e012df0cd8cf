package config

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Sentinel-mode defaults of the generic directives, and the redis-server
// defaults the rewrite compares against (a Sentinel is a redis-server whose
// port and protected-mode defaults were changed at start-up, so the rewrite
// writes `port` and `protected-mode` out even when they were never set).
const (
	DefaultPort           = 26379
	DefaultMaxclients     = 10000
	DefaultTCPKeepalive   = 300
	DefaultTCPBacklog     = 511
	DefaultHz             = 10
	DefaultAcllogMaxLen   = 128
	DefaultLoglevel       = "notice"
	DefaultSupervised     = "no"
	DefaultSyslogIdent    = "redis"
	DefaultSyslogFacility = "local0"
	DefaultTLSAuthClients = "yes"
	DefaultLogFormat      = LogFormatRedis

	redisDefaultPort          = 6379
	redisDefaultProtectedMode = true

	minHz = 1
	maxHz = 500
)

// The values of log-format, a go-sentinel extension: Redis's log line
// format, or one JSON object per line.
const (
	LogFormatRedis = "redis"
	LogFormatJSON  = "json"
)

// DefaultBind is the listening address list used when no `bind` directive
// is given: every IPv4 address, and every IPv6 address if available.
var DefaultBind = []string{"*", "-::*"}

// Server holds the generic (non-`sentinel`) directives go-sentinel honours.
// Strings are empty when unset. Every other valid redis.conf directive is
// accepted and reported in Config.Ignored instead.
type Server struct {
	// Port is the TCP port (0 disables TCP); default 26379.
	Port int
	// Bind is the list of listening addresses; nil means DefaultBind and an
	// empty non-nil slice means `bind ""` (no TCP listener address).
	Bind []string
	// BindSourceAddr is the source address of outgoing connections.
	BindSourceAddr string
	// ProtectedMode defaults to false in Sentinel mode.
	ProtectedMode bool
	Daemonize     bool
	// Supervised is one of "no" (default), "upstart", "systemd", "auto".
	Supervised string
	Pidfile    string
	// Logfile is the log file path; empty means standard output.
	Logfile string
	// Loglevel is one of debug, verbose, notice (default), warning,
	// nothing: the level the file sets. At run time the logger's level is
	// the truth (SENTINEL CONFIG SET changes it); the node passes it to
	// the rewrite.
	Loglevel string
	// LogFormat is "redis" (default) or "json"; a go-sentinel extension,
	// not acted upon yet.
	LogFormat string
	// Dir is the argument of the last `dir` directive as written; empty if
	// none. Config.WorkDir is the absolute directory it leads to.
	Dir string
	// Requirepass is the password of the default user.
	Requirepass string
	// Users holds the words after `user` of each user directive, in order
	// (the user name first, then its ACL rules).
	Users   [][]string
	Aclfile string
	// AcllogMaxLen is acllog-max-len; default 128.
	AcllogMaxLen int

	// TLSPort is tls-port; 0 (default) disables TLS connections.
	TLSPort                int
	TLSCertFile            string
	TLSKeyFile             string
	TLSKeyFilePass         string
	TLSClientCertFile      string
	TLSClientKeyFile       string
	TLSClientKeyFilePass   string
	TLSDHParamsFile        string
	TLSCACertFile          string
	TLSCACertDir           string
	TLSProtocols           string
	TLSCiphers             string
	TLSCiphersuites        string
	TLSPreferServerCiphers bool
	// TLSReplication makes every outgoing Sentinel link use TLS.
	TLSReplication bool
	// TLSAuthClients is "yes" (default), "no" or "optional".
	TLSAuthClients string

	Unixsocket string
	// Unixsocketperm is the permission of the unix socket; 0 = unset.
	Unixsocketperm uint32
	// Maxclients defaults to 10000.
	Maxclients int
	// Timeout is the client idle timeout in seconds; 0 (default) = never.
	Timeout int
	// TCPKeepalive is in seconds; default 300.
	TCPKeepalive int
	// TCPBacklog defaults to 511.
	TCPBacklog int
	// Hz defaults to 10 and is clamped to 1..500 like Redis does.
	Hz int

	SyslogEnabled bool
	// SyslogIdent defaults to "redis".
	SyslogIdent string
	// SyslogFacility is user or local0 (default) .. local7.
	SyslogFacility string

	// MetricsAddr is the host:port of the metrics listener; "" (default)
	// means none. A go-sentinel extension, not acted upon yet.
	MetricsAddr string

	// RenameCommands are the generic `rename-command` mappings in file
	// order; Renamed is empty when the command was removed.
	RenameCommands []settings.Rename
}

// DefaultServer returns the generic settings of a Sentinel whose config
// file sets nothing: every field at the default of its directive.
func DefaultServer() Server {
	var s Server
	for i := range serverDirectives {
		d := &serverDirectives[i]
		if d.set != nil {
			d.set(&s, d.defaultWords())
		}
	}
	return s
}

// sentinelCommands are the commands a Sentinel has, the only ones the
// generic `rename-command` may name.
var sentinelCommands = []string{
	"acl", "auth", "client", "command", "hello", "info", "ping", "psubscribe",
	"publish", "punsubscribe", "role", "sentinel", "shutdown", "subscribe",
	"unsubscribe",
}

// renameTable tracks the command table while `rename-command` lines are
// applied: names are case-insensitive, a renamed command loses its old
// name, and a new name must not already exist.
type renameTable map[string]bool

func newRenameTable() renameTable {
	t := renameTable{}
	for _, c := range sentinelCommands {
		t[c] = true
	}
	return t
}

// rename applies one `rename-command from to` and returns Redis' message
// on error.
func (t renameTable) rename(from, to string) string {
	from, lto := strings.ToLower(from), strings.ToLower(to)
	if strings.Contains(from, "|") || !t[from] {
		return "No such command in rename-command"
	}
	delete(t, from)
	if to != "" {
		if t[lto] {
			return "Target command name already exists"
		}
		t[lto] = true
	}
	return ""
}
