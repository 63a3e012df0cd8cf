#!/usr/bin/env bash
# Installs, when missing, the Debian packages go-sentinel's tests and demo
# use: redis-server and redis-sentinel (the oracle and the data nodes),
# redis-tools (redis-cli) and tcl (the upstream test suite).
set -euo pipefail
need=()
command -v redis-server   >/dev/null 2>&1 || need+=(redis-server)
command -v redis-sentinel >/dev/null 2>&1 || need+=(redis-sentinel)
command -v redis-cli      >/dev/null 2>&1 || need+=(redis-tools)
command -v tclsh          >/dev/null 2>&1 || need+=(tcl)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Debian starts the services it installs where an init system runs; the
# tests pick their own ports and need none of them.
exit 0
