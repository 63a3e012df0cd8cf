#!/usr/bin/env bash
# Starts a throwaway topology on loopback: a master on 6380, replicas on
# 6381 and 6382 (Debian's redis-server) and three go-sentinels on
# 26379-26381 watching it as "mymaster". Everything lives in a temp dir and
# is torn down on Ctrl-C.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin/go-sentinel"
work=$(mktemp -d /tmp/go-sentinel-demo.XXXXXX)
pids=()
cleanup() {
  echo; echo "tearing down..."
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for port in 6380 6381 6382; do
  mkdir -p "$work/redis-$port"
  args=(--port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/redis-$port" --logfile redis.log)
  [ "$port" != 6380 ] && args+=(--replicaof 127.0.0.1 6380)
  redis-server "${args[@]}" & pids+=($!)
done
for port in 26379 26380 26381; do
  mkdir -p "$work/sentinel-$port"
  cat >"$work/sentinel-$port/sentinel.conf" <<CONF
port $port
bind 127.0.0.1
sentinel monitor mymaster 127.0.0.1 6380 2
sentinel down-after-milliseconds mymaster 5000
sentinel failover-timeout mymaster 60000
logfile "$work/sentinel-$port/sentinel.log"
CONF
  "$bin" "$work/sentinel-$port/sentinel.conf" & pids+=($!)
done
sleep 1
cat <<TXT

go-sentinel demo is running (files in $work):
  master   127.0.0.1:6380, replicas 127.0.0.1:6381 and :6382
  sentinels on 127.0.0.1:26379, :26380, :26381

Try, in another terminal:
  redis-cli -p 26379 SENTINEL MYID
  redis-cli -p 26379 INFO sentinel
  redis-cli -p 26379 ROLE
  redis-cli -p 26379 PSUBSCRIBE '*'          # watch events
  tail -f $work/sentinel-26379/sentinel.log

Press Ctrl-C to stop everything.
TXT
wait
