#!/usr/bin/env bash
# Installs, when missing, the Debian packages go-sentinel's tests and demo
# use: redis-server and redis-sentinel (the oracle and the data nodes),
# redis-tools (redis-cli) and tcl (the upstream test suite); for the client
# compatibility tests (test/integration/clients_*_test.go) also Debian's
# python3-redis (redis-py), php-cli with php-redis (phpredis), ruby-redis
# (redis-rb), nodejs and npm, and the npm packages locked in
# test/integration/clients/package-lock.json (ioredis); iproute2 and
# iptables for the failure-detection test that drops a test host's packets
# in a network namespace (test/integration/netns_test.go) and the
# reliability tests' namespaced hosts (test/integration/rel_*_test.go);
# for the packaging tests (test/packaging) bash-completion, strace and
# podman; faketime, whose libfaketime TestRelFaketimeCannotMoveGoClock
# preloads to show that it cannot move a Go binary's clock; prometheus for
# its promtool, which parses the Grafana dashboard's queries
# (test/integration/dashboard_test.go); haproxy, which make bench-proxy
# measures the master-following proxy beside.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
need=()
command -v redis-server   >/dev/null 2>&1 || need+=(redis-server)
command -v redis-sentinel >/dev/null 2>&1 || need+=(redis-sentinel)
command -v redis-cli      >/dev/null 2>&1 || need+=(redis-tools)
command -v tclsh          >/dev/null 2>&1 || need+=(tcl)
# redis-py goes with Debian's own interpreter, which the tests look for first.
{ [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import redis.sentinel' >/dev/null 2>&1; } || need+=(python3-redis)
{ command -v php >/dev/null 2>&1 && php -r 'exit(class_exists("RedisSentinel") ? 0 : 1);' >/dev/null 2>&1; } || need+=(php-cli php-redis)
{ [ -x /usr/bin/ruby ] && /usr/bin/ruby -e 'require "redis"' >/dev/null 2>&1; } || need+=(ruby-redis)
command -v node           >/dev/null 2>&1 || need+=(nodejs)
command -v npm            >/dev/null 2>&1 || need+=(npm)
# ip and iptables live in /usr/sbin, often not in a user's PATH.
{ command -v ip       >/dev/null 2>&1 || [ -x /usr/sbin/ip ]; }       || need+=(iproute2)
{ command -v iptables >/dev/null 2>&1 || [ -x /usr/sbin/iptables ]; } || need+=(iptables)
[ -f /usr/share/bash-completion/bash_completion ] || need+=(bash-completion)
command -v strace         >/dev/null 2>&1 || need+=(strace)
command -v podman         >/dev/null 2>&1 || need+=(podman)
ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1 || need+=(faketime)
command -v promtool       >/dev/null 2>&1 || need+=(prometheus)
{ command -v haproxy  >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; }  || need+=(haproxy)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
# ioredis for the node client tests, exactly as locked; reinstalled when the
# lock file is newer than the last install.
clients="$root/test/integration/clients"
if [ ! -f "$clients/node_modules/.package-lock.json" ] || [ "$clients/package-lock.json" -nt "$clients/node_modules/.package-lock.json" ]; then
  (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error)
fi
# Debian starts the services it installs where an init system runs; the
# tests pick their own ports and need none of them.
exit 0
