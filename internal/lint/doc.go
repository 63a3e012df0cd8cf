// Package lint checks a Sentinel topology for the mistakes that make a
// failover impossible, unsafe or slower than needed: too few Sentinels,
// quorum and majority confusion, masters that keep accepting writes when
// isolated, replicas that cannot be promoted or accept writes, timings
// against an availability target, masters that need sharding rather
// than failover, and data nodes that cannot take part in a failover that
// pauses writes (too old, or Sentinel's user lacks the ACL).
//
// The rules are pure: Check takes a parsed configuration and, optionally,
// the Facts a probe gathered from the running instances and Sentinels, and
// returns Findings. Nothing here does I/O or reads the clock; the probe
// lives in the probe subpackage.
package lint
