// Package config reads, validates and rewrites a go-sentinel configuration
// file with the same rules as Redis 7.0.15 in Sentinel mode.
//
// Parsing follows loadServerConfigFromString: the file is split on '\n',
// every line is trimmed, blank and '#' lines are skipped, the rest is split
// with the sdssplitargs rules (splitargs.Split) and the first word, lower-cased,
// names the directive. Generic server directives are validated as they are
// read; `sentinel ...` lines are queued and applied after the whole input was
// read, in the three passes Redis uses, so a per-master line may precede its
// `sentinel monitor` line. Every error is an *Error whose Error method prints
// the exact "FATAL CONFIG FILE ERROR" block Redis prints.
//
// Every directive is defined once, in the directive table (directive.go,
// directives_server.go, directives_redis.go), in the spirit of Redis's
// standardConfig: its name and alias, its validation, the Server field it
// sets with its default, how the rewrite writes it, how Format shows it
// and whether SENTINEL CONFIG GET/SET exposes it. The `sentinel ...`
// directives have a table of their own (sentinel_directives.go) holding,
// for each, how a line is loaded and how the rewrite writes it.
//
// Rewrite implements the CONFIG REWRITE engine: the old file's comments,
// blank lines and unknown lines stay in place, each generated line replaces
// the next unused old line of the same option, extra lines are appended and
// the file is replaced atomically.
//
// `include` is supported like Redis does it (glob patterns, paths relative to
// the directory the preceding `dir` directives lead to); `include` lines are
// kept verbatim by Rewrite, which only ever edits the main file.
package config
