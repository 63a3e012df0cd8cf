package config

import (
	"math"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/commands"
)

// This file holds the rest of the directive table: the redis.conf
// directives Redis 7.0.15 knows (its static_configs table, TLS included)
// that a Sentinel accepts, validates as Redis does, and ignores, plus the
// deprecated names Redis still accepts.

var enumYesNoLocal = []string{"no", "yes", "local"}

// ignoredDirectives are Redis's standard configs go-sentinel does not use.
var ignoredDirectives = []directive{
	// Bool configs.
	boolDir("rdbchecksum", ""),
	boolDir("io-threads-do-reads", ""),
	boolDir("always-show-logo", ""),
	boolDir("rdbcompression", ""),
	boolDir("rdb-del-sync-files", ""),
	boolDir("activerehashing", ""),
	boolDir("stop-writes-on-bgsave-error", ""),
	boolDir("set-proc-title", ""),
	boolDir("dynamic-hz", ""),
	boolDir("lazyfree-lazy-eviction", ""),
	boolDir("lazyfree-lazy-expire", ""),
	boolDir("lazyfree-lazy-server-del", ""),
	boolDir("lazyfree-lazy-user-del", ""),
	boolDir("lazyfree-lazy-user-flush", ""),
	boolDir("repl-disable-tcp-nodelay", ""),
	boolDir("repl-diskless-sync", ""),
	boolDir("aof-rewrite-incremental-fsync", ""),
	boolDir("no-appendfsync-on-rewrite", ""),
	boolDir("cluster-require-full-coverage", ""),
	boolDir("rdb-save-incremental-fsync", ""),
	boolDir("aof-load-truncated", ""),
	boolDir("aof-use-rdb-preamble", ""),
	boolDir("aof-timestamp-enabled", ""),
	boolDir("cluster-replica-no-failover", "cluster-slave-no-failover"),
	boolDir("replica-lazy-flush", "slave-lazy-flush"),
	boolDir("replica-serve-stale-data", "slave-serve-stale-data"),
	boolDir("replica-read-only", "slave-read-only"),
	boolDir("replica-ignore-maxmemory", "slave-ignore-maxmemory"),
	boolDir("jemalloc-bg-thread", ""),
	boolDir("activedefrag", ""),
	boolDir("cluster-enabled", ""),
	boolDir("appendonly", ""),
	boolDir("cluster-allow-reads-when-down", ""),
	boolDir("cluster-allow-pubsubshard-when-down", ""),
	boolDir("crash-log-enabled", ""),
	boolDir("crash-memcheck-enabled", ""),
	boolDir("use-exit-on-panic", ""),
	boolDir("disable-thp", ""),
	boolDir("cluster-allow-replica-migration", ""),
	boolDir("replica-announced", ""),
	boolDir("latency-tracking", ""),
	boolDir("aof-disable-auto-gc", ""),
	boolDir("replica-ignore-disk-write-errors", ""),

	// String configs.
	strDir("replica-announce-ip", "slave-announce-ip"),
	strDir("masteruser", ""),
	strDir("cluster-announce-ip", ""),
	strDir("cluster-config-file", ""),
	withCheck(strDir("cluster-announce-hostname", ""), checkAnnouncedHostname),
	withCheck(strDir("dbfilename", ""), checkDBFilename),
	withCheck(strDir("appendfilename", ""), checkAOFFilename),
	withCheck(strDir("appenddirname", ""), checkAOFDirname),
	strDir("server_cpulist", ""),
	strDir("bio_cpulist", ""),
	strDir("aof_rewrite_cpulist", ""),
	strDir("bgsave_cpulist", ""),
	strDir("ignore-warnings", ""),
	strDir("proc-title-template", ""),
	strDir("masterauth", ""),

	// Enum configs.
	enumDir("repl-diskless-load", "disabled", "on-empty-db", "swapdb"),
	enumDir("maxmemory-policy", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"),
	enumDir("appendfsync", "everysec", "always", "no"),
	enumDir("oom-score-adj", "no", "yes", "relative", "absolute"),
	enumDir("acl-pubsub-default", "allchannels", "resetchannels"),
	enumDir("sanitize-dump-payload", "no", "yes", "clients"),
	enumDir("enable-protected-configs", enumYesNoLocal...),
	enumDir("enable-debug-command", enumYesNoLocal...),
	// Valkey 8's hidden enable-debug-assert, which Valkey's test
	// harness writes into every config: known on Surface72 only.
	sinceSurface(boolDir("enable-debug-assert", ""), commands.Surface72),
	enumDir("enable-module-command", enumYesNoLocal...),
	enumDir("cluster-preferred-endpoint-type", "ip", "hostname", "unknown-endpoint"),
	enumDir("propagation-error-behavior", "ignore", "panic", "panic-on-replicas"),
	shutdownDir("shutdown-on-sigint"),
	shutdownDir("shutdown-on-sigterm"),

	// Integer configs.
	intDir("databases", "", 1, intMax, 0),
	intDir("io-threads", "", 1, 128, 0),
	intDir("auto-aof-rewrite-percentage", "", 0, intMax, 0),
	intDir("cluster-replica-validity-factor", "cluster-slave-validity-factor", 0, intMax, 0),
	intDir("list-max-listpack-size", "list-max-ziplist-size", intMin, intMax, 0),
	intDir("cluster-migration-barrier", "", 0, intMax, 0),
	intDir("active-defrag-cycle-min", "", 1, 99, 0),
	intDir("active-defrag-cycle-max", "", 1, 99, 0),
	intDir("active-defrag-threshold-lower", "", 0, 1000, 0),
	intDir("active-defrag-threshold-upper", "", 0, 1000, 0),
	intDir("lfu-log-factor", "", 0, intMax, 0),
	intDir("lfu-decay-time", "", 0, intMax, 0),
	intDir("replica-priority", "slave-priority", 0, intMax, 0),
	intDir("repl-diskless-sync-delay", "", 0, intMax, 0),
	intDir("maxmemory-samples", "", 1, intMax, 0),
	intDir("maxmemory-eviction-tenacity", "", 0, 100, 0),
	intDir("replica-announce-port", "slave-announce-port", 0, 65535, 0),
	intDir("cluster-port", "", 0, 65535, 0),
	intDir("cluster-announce-bus-port", "", 0, 65535, 0),
	intDir("cluster-announce-port", "", 0, 65535, 0),
	intDir("cluster-announce-tls-port", "", 0, 65535, 0),
	intDir("repl-timeout", "", 1, intMax, 0),
	intDir("repl-ping-replica-period", "repl-ping-slave-period", 1, intMax, 0),
	intDir("list-compress-depth", "", 0, intMax, 0),
	intDir("rdb-key-save-delay", "", intMin, intMax, 0),
	intDir("key-load-delay", "", intMin, intMax, 0),
	intDir("active-expire-effort", "", 1, 10, 0),
	intDir("min-replicas-to-write", "min-slaves-to-write", 0, intMax, 0),
	intDir("min-replicas-max-lag", "min-slaves-max-lag", 0, intMax, 0),
	intDir("watchdog-period", "", 0, intMax, 0),
	intDir("shutdown-timeout", "", 0, intMax, 0),
	intDir("repl-diskless-sync-max-replicas", "", 0, intMax, 0),

	// Unsigned int configs.
	uintDir("socket-mark-id", "", 0, uintMax, 0),

	// Unsigned long configs (bounds checked as signed by Redis).
	intDir("active-defrag-max-scan-fields", "", 1, longMax, 0),
	intDir("slowlog-max-len", "", 0, longMax, 0),

	// Long long configs.
	intDir("busy-reply-threshold", "lua-time-limit", 0, longMax, 0),
	intDir("cluster-node-timeout", "", 0, llongMax, 0),
	intDir("slowlog-log-slower-than", "", -1, llongMax, 0),
	intDir("latency-monitor-threshold", "", 0, llongMax, 0),
	intDir("proto-max-bulk-len", "", 1024*1024, longMax, numMemory),
	intDir("stream-node-max-entries", "", 0, llongMax, 0),
	intDir("repl-backlog-size", "", 1, llongMax, numMemory),

	// Unsigned long long configs.
	uintDir("maxmemory", "", 0, math.MaxUint64, numMemory),
	uintDir("cluster-link-sendbuf-limit", "", 0, math.MaxUint64, numMemory),

	// size_t configs.
	uintDir("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, longMax, 0),
	uintDir("set-max-intset-entries", "", 0, longMax, 0),
	uintDir("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, longMax, 0),
	uintDir("active-defrag-ignore-bytes", "", 1, llongMax, numMemory),
	uintDir("hash-max-listpack-value", "hash-max-ziplist-value", 0, longMax, numMemory),
	uintDir("stream-node-max-bytes", "", 0, longMax, numMemory),
	uintDir("zset-max-listpack-value", "zset-max-ziplist-value", 0, longMax, numMemory),
	uintDir("hll-sparse-max-bytes", "", 0, longMax, numMemory),
	uintDir("tracking-table-max-keys", "", 0, longMax, 0),
	uintDir("client-query-buffer-limit", "", 1024*1024, longMax, numMemory),
	intDir("maxmemory-clients", "", -100, math.MaxInt64, numMemory|numPercent),

	// Other numeric configs.
	intDir("repl-backlog-ttl", "", 0, longMax, 0),
	intDir("auto-aof-rewrite-min-size", "", 0, llongMax, numMemory),
	intDir("loading-process-events-interval-bytes", "", 1024, intMax, 0),

	// TLS configs (Debian builds Redis with TLS).
	intDir("tls-session-cache-size", "", 0, intMax, 0),
	intDir("tls-session-cache-timeout", "", 0, intMax, 0),
	boolDir("tls-cluster", ""),
	boolDir("tls-session-caching", ""),

	// Special configs.
	specialDir("save", "", true, checkSave),
	specialDir("client-output-buffer-limit", "", true, checkClientOutputBufferLimit),
	specialDir("oom-score-adj-values", "", true, checkOOMScoreAdjValues),
	specialDir("notify-keyspace-events", "", false, checkNotifyKeyspaceEvents),
	specialDir("replicaof", "slaveof", true, checkReplicaOf),
	specialDir("latency-tracking-info-percentiles", "", true, checkLatencyPercentiles),
}

// deprecatedDirectives are accepted and ignored when they have exactly two
// words.
var deprecatedDirectives = []directive{
	deprecatedDir("list-max-ziplist-entries"),
	deprecatedDir("list-max-ziplist-value"),
	deprecatedDir("lua-replicate-commands"),
}

func shutdownDir(name string) directive {
	d := enumDir(name, "default", "save", "nosave", "now", "force")
	d.multi = true
	d.check = func(args []string) string {
		var save, nosave bool
		for _, a := range args {
			save = save || strings.EqualFold(a, "save")
			nosave = nosave || strings.EqualFold(a, "nosave")
		}
		if save && nosave {
			return "shutdown options SAVE and NOSAVE can't be used simultaneously"
		}
		return ""
	}
	return d
}

func checkAnnouncedHostname(v string) string {
	if len(v) >= 256 {
		return "Hostnames must be less than 256 characters"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.') {
			return "Hostnames may only contain alphanumeric characters, hyphens or dots"
		}
	}
	return ""
}

func isBaseName(v string) bool { return !strings.ContainsAny(v, `/\`) }

func checkDBFilename(v string) string {
	if !isBaseName(v) {
		return "dbfilename can't be a path, just a filename"
	}
	return ""
}

func checkAOFFilename(v string) string {
	switch {
	case v == "":
		return "appendfilename can't be empty"
	case !isBaseName(v):
		return "appendfilename can't be a path, just a filename"
	}
	return ""
}

func checkAOFDirname(v string) string {
	switch {
	case v == "":
		return "appenddirname can't be empty"
	case !isBaseName(v):
		return "appenddirname can't be a path, just a dirname"
	}
	return ""
}

func checkSave(args []string) string {
	if len(args) == 1 && args[0] == "" {
		return ""
	}
	if len(args)%2 != 0 {
		return "Invalid save parameters"
	}
	for j, a := range args {
		v, rest, _ := cStrtoll(a, 10)
		if rest != "" || (j%2 == 0 && v < 1) || (j%2 == 1 && v < 0) {
			return "Invalid save parameters"
		}
	}
	return ""
}

func checkClientOutputBufferLimit(args []string) string {
	if len(args)%4 != 0 {
		return "Wrong number of arguments in buffer limit configuration."
	}
	for j := 0; j < len(args); j += 4 {
		switch strings.ToLower(args[j]) {
		case "normal", "slave", "replica", "pubsub":
		default:
			return "Invalid client class specified in buffer limit configuration."
		}
		_, hardOK := memtoull(args[j+1])
		_, softOK := memtoull(args[j+2])
		secs, rest, _ := cStrtoll(args[j+3], 10)
		if !hardOK || !softOK || secs < 0 || rest != "" {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
	}
	return ""
}

func checkOOMScoreAdjValues(args []string) string {
	if len(args) != 3 {
		return "wrong number of arguments"
	}
	for _, a := range args {
		v, rest, _ := cStrtoll(a, 10)
		if rest != "" || v < -2000 || v > 2000 {
			return "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
		}
	}
	return ""
}

func checkNotifyKeyspaceEvents(args []string) string {
	for _, c := range args[0] {
		if !strings.ContainsRune("Ag$lshzxeKEtmdn", c) {
			return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
	}
	return ""
}

// maxBindAddrs is CONFIG_BINDADDR_MAX.
const maxBindAddrs = 16

func checkBind(args []string) string {
	if len(args) > maxBindAddrs {
		return "Too many bind addresses specified."
	}
	return ""
}

func checkReplicaOf(args []string) string {
	if len(args) != 2 {
		return "wrong number of arguments"
	}
	if strings.EqualFold(args[0], "no") && strings.EqualFold(args[1], "one") {
		return ""
	}
	port, rest, _ := cStrtoll(args[1], 10)
	if int64(int32(port)) < 0 || int64(int32(port)) > 65535 || rest != "" {
		return "Invalid master port"
	}
	return ""
}

func checkLatencyPercentiles(args []string) string {
	if len(args) == 1 && args[0] == "" {
		return ""
	}
	for _, a := range args {
		p, ok := string2d(a)
		if !ok {
			return "Invalid latency-tracking-info-percentiles parameters"
		}
		if p > 100 || p < 0 {
			return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
	}
	return ""
}

// sinceSurface marks d as known from command surface sf on.
func sinceSurface(d directive, sf commands.Surface) directive {
	d.since = sf
	return d
}
