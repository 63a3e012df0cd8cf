#!/usr/bin/env bash
# Runs Valkey's Sentinel test suite (tests/sentinel of the valkey
# repository, tag VALKEY_TAG, 8.0.1 by default) with a given binary
# standing in for src/valkey-sentinel, VALKEY_SERVER or else Debian's
# redis-server as src/valkey-server (see below: one Valkey-only line is
# then dropped from the data nodes' configs) and Debian's redis-cli as
# src/valkey-cli. Each unit
# runs on its own with a time bound, so a hang in one unit costs only that
# unit. Modelled on ../shared/tools/upstream-suite (Redis's suite), with
# the same output.
#
# usage: scripts/valkey-suite.sh SENTINEL_BINARY [UNIT_PATTERN...]
# prints one line per unit, then "N passed, M failed" (M counts FAILED
# lines plus units that hung or aborted).
#
# The harness starts the Sentinel as `src/valkey-sentinel <cfgfile>`: to
# run go-sentinel on a command surface, pass a wrapper script that adds
# the option, e.g. `exec bin/go-sentinel "$@" --sentinel command-surface
# 7.2` (the Makefile's upstream-valkey target writes one).
#
# Needs: tclsh; redis-server and redis-cli on PATH (Debian: apt-get install
# redis-server redis-tools); a git directory of the valkey repository, found
# as .mirror/valkey-io+valkey/repo in a folder above this script, or named
# by VALKEY_MIRROR (a bare clone of the valkey-io/valkey repository).
set -u
[ $# -ge 1 ] || { echo "usage: $0 SENTINEL_BINARY [UNIT_PATTERN...]"; echo "0 passed, 1 failed"; exit 1; }
bin=$(readlink -f "$1"); shift
[ -x "$bin" ] || { echo "no executable sentinel binary: $bin"; echo "0 passed, 1 failed"; exit 1; }
mirror=${VALKEY_MIRROR:-}
if [ -z "$mirror" ]; then
  d=$(cd "$(dirname "$0")" && pwd)
  for _ in 1 2 3 4 5 6; do
    [ -d "$d/.mirror/valkey-io+valkey/repo" ] && { mirror="$d/.mirror/valkey-io+valkey/repo"; break; }
    d=$(dirname "$d")
  done
fi
[ -n "$mirror" ] || { echo "valkey repository not found: set VALKEY_MIRROR to a git directory of github.com/valkey-io/valkey (see the comment at the top of $0)"; echo "0 passed, 1 failed"; exit 1; }
tag=${VALKEY_TAG:-8.0.1}
unit_s=${UNIT_S:-240}
for tool in tclsh redis-server redis-cli; do
  command -v "$tool" >/dev/null || { echo "$tool not found on PATH"; echo "0 passed, 1 failed"; exit 1; }
done
work=$(mktemp -d /tmp/valkey-suite.XXXXXX)
if ! git --git-dir="$mirror" archive "$tag" tests runtest-sentinel | tar -x -C "$work"; then
  echo "cannot read tag $tag from $mirror"; echo "0 passed, 1 failed"; rm -rf "$work"; exit 1
fi
mkdir -p "$work/src"
# The data nodes: VALKEY_SERVER names a valkey-server binary of the
# operator's own (this repository neither ships nor builds one). Without it, Debian's redis-server 7.0.15: Valkey's harness writes
# `enable-debug-assert yes` (a hidden Valkey 8 setting) into every
# instance's config, which redis-server refuses ("Bad directive"), so
# src/valkey-server drops that one line from its config file and runs
# redis-server; tests that send the data nodes Valkey's own commands or
# settings (CONFIG SET primaryauth) then fail on those nodes. The Sentinel
# under test gets its config as written.
if [ -n "${VALKEY_SERVER:-}" ]; then
  ln -s "$(readlink -f "$VALKEY_SERVER")" "$work/src/valkey-server"
else
  cat >"$work/src/valkey-server" <<SHIM
#!/bin/sh
[ -f "\$1" ] && sed -i '/^enable-debug-assert /d' "\$1"
exec "$(command -v redis-server)" "\$@"
SHIM
  chmod +x "$work/src/valkey-server"
fi
ln -s "$(command -v redis-cli)" "$work/src/valkey-cli"
ln -s "$bin" "$work/src/valkey-sentinel"
cd "$work"
units=$(cd tests/sentinel/tests && ls *.tcl)
if [ $# -gt 0 ]; then units=$(for p in "$@"; do echo "$units" | grep -- "$p"; done); fi
reap() {
  # only processes started from this work dir
  for d in /proc/[0-9]*; do
    case "$(readlink "$d/cwd" 2>/dev/null)" in "$work"/*) kill -9 "${d#/proc/}" 2>/dev/null;; esac
  done
}
pass=0; fail=0
for u in $units; do
  log="$work/$u.log"
  timeout -k 5 "$unit_s" tclsh tests/sentinel/run.tcl --single "$u" >"$log" 2>&1
  rc=$?
  reap
  ok=$(grep -c ': .*OK' "$log")
  bad=$(grep -c 'FAILED' "$log")
  if [ $rc -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; fi
  pass=$((pass+ok)); fail=$((fail+bad))
  first=$(grep -m1 -E 'FAILED|Aborting|caught' "$log" | sed 's/\x1b\[[0-9;]*m//g' | cut -c1-150)
  printf '%-28s ok=%-3s failed=%-2s rc=%-3s %s\n' "$u" "$ok" "$bad" "$rc" "$first"
done
reap
[ -n "${KEEP:-}" ] && echo "logs kept in $work" || rm -rf "$work"
echo "$pass passed, $fail failed"
