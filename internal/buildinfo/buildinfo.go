// Package buildinfo holds the version strings of the binary.
package buildinfo

// Version is go-sentinel's own version, set with
// -ldflags "-X github.com/go-sentinel/go-sentinel/internal/buildinfo.Version=...".
var Version = "0.1.0-dev"

// Commit is the git commit the binary was built from, set by the Makefile.
var Commit = "00000000"

// RedisVersion is the Redis Sentinel version go-sentinel answers as
// (HELLO, INFO server), the one whose behaviour it reproduces.
const RedisVersion = "7.0.15"
