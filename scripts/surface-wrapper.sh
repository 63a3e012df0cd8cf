#!/bin/sh
# Writes, at the path given as $1, a wrapper script that runs the
# go-sentinel binary $2 on command surface $3 (`--sentinel
# command-surface $3` after the harness's own arguments). The upstream
# test suites start src/redis-sentinel (or src/valkey-sentinel) as
# `<binary> <cfgfile>`, so the Makefile's upstream-7.4 and upstream-valkey
# targets hand them such a wrapper.
#
# usage: scripts/surface-wrapper.sh WRAPPER_PATH GO_SENTINEL_BINARY SURFACE
set -eu
[ $# -eq 3 ] || { echo "usage: $0 WRAPPER_PATH GO_SENTINEL_BINARY SURFACE" >&2; exit 2; }
bin=$(readlink -f "$2")
[ -x "$bin" ] || { echo "$0: no executable binary $2" >&2; exit 1; }
cat >"$1" <<WRAP
#!/bin/sh
exec "$bin" "\$@" --sentinel command-surface $3
WRAP
chmod +x "$1"
