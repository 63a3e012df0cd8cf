#!/usr/bin/env bash
# Side-by-side measurement of go-sentinel and Debian's redis-sentinel on
# the same kind of topology (1 master, 2 replicas, 3 Sentinels, loopback,
# down-after 2000 ms): resident memory after discovery, and the time from
# killing the master to the first +switch-master seen by a subscriber.
# Prints one line per implementation. Uses ports 7610-7612 and 27610-27612.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run() { # name binary
  local name=$1 bin=$2 work pids=()
  work=$(mktemp -d /tmp/compare.XXXXXX)
  for p in 7610 7611 7612; do
    a=(--port "$p" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" --daemonize no --logfile "$work/r$p.log")
    [ "$p" != 7610 ] && a+=(--replicaof 127.0.0.1 7610)
    redis-server "${a[@]}" & pids+=($!)
  done
  for p in 27610 27611 27612; do
    printf 'port %s\nbind 127.0.0.1\nsentinel monitor m 127.0.0.1 7610 2\nsentinel down-after-milliseconds m 2000\nsentinel failover-timeout m 10000\nlogfile %s/s%s.log\n' "$p" "$work" "$p" >"$work/s$p.conf"
    "$bin" "$work/s$p.conf" & pids+=($!)
  done
  for _ in $(seq 100); do
    n=$(redis-cli -p 27610 sentinel sentinels m 2>/dev/null | grep -c '^name$' || true)
    r=$(redis-cli -p 27610 sentinel replicas m 2>/dev/null | grep -c '^name$' || true)
    [ "$n" = 2 ] && [ "$r" = 2 ] && break; sleep 0.1
  done
  sleep 2
  rss=0
  for p in "${pids[@]:3}"; do rss=$((rss + $(awk '/VmRSS/{print $2}' /proc/$p/status))); done
  redis-cli -p 27611 subscribe +switch-master >"$work/sub.txt" & local sub=$!
  sleep 0.5
  t0=$(date +%s%N)
  kill -9 "${pids[0]}"
  for _ in $(seq 600); do grep -q '^m 127.0.0.1 7610 ' "$work/sub.txt" 2>/dev/null && break; sleep 0.05; done
  t1=$(date +%s%N)
  kill "$sub" 2>/dev/null || true
  printf '%-15s RSS of 3 Sentinels: %6d KiB   kill master -> +switch-master: %5d ms (down-after 2000 ms)\n' \
    "$name" "$rss" $(( (t1 - t0) / 1000000 ))
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
run go-sentinel "$root/bin/go-sentinel"
run redis-sentinel "$(command -v redis-sentinel)"
