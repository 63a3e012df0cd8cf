// Package process holds the pieces of redis-sentinel's process contract on
// Linux: daemonizing (by re-executing the binary, since Go cannot fork),
// the pidfile, systemd/upstart supervision and the start-up check that the
// config file is writable.
package process
