// Package settings holds what a Sentinel's configuration says, as plain
// data: the persisted state (Persisted, MasterSpec, SentinelSpec), a
// master's options (Master) and their names, the timer periods (Timing),
// and addresses (Addr, CanonicalIP, the proxy's address lists). The core
// (internal/monitor) turns it into live state and back; internal/config
// reads and rewrites it without importing the core. It imports nothing of
// go-sentinel's but internal/ipaddr.
package settings
