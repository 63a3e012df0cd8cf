package commands

import "slices"

// Sentinel is the command set a Sentinel answers: Redis 7.0.15's commands
// flagged SENTINEL, CLIENT SETINFO of Redis 7.2 and go-sentinel's SENTINEL
// EXPLAIN: 15 commands and 74 names with their subcommands, of which
// COMMAND lists Redis 7.0.15's 72 on Surface70 and those and CLIENT
// SETINFO, 73 as Redis 7.2 to 8.x and Valkey 8 and 9, on Surface72
// (SENTINEL EXPLAIN is Unlisted on both).
var Sentinel = New(slices.Concat(aclSpecs, clientSpecs, commandSpecs, pubsubSpecs, sentinelSpecs, serverSpecs), valkeyAliases)

// valkeyAliases are Valkey's spellings of SENTINEL subcommands, hidden
// from COMMAND and from ACL rules; they run and are checked as the command
// they stand for.
var valkeyAliases = map[string]string{
	"sentinel|primaries":                "sentinel|masters",
	"sentinel|primary":                  "sentinel|master",
	"sentinel|get-primary-addr-by-name": "sentinel|get-master-addr-by-name",
	"sentinel|is-primary-down-by-addr":  "sentinel|is-master-down-by-addr",
}
