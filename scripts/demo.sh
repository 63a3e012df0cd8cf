#!/usr/bin/env bash
# Starts a throwaway topology on loopback: a master on 6380, replicas on
# 6381 and 6382 (Debian's redis-server) and three go-sentinels on
# 26379-26381 watching it as "mymaster", with Prometheus metrics on
# 9355-9357. DEMO_PROMETHEUS=1 also starts Debian's Prometheus on 9090 with
# the shipped alert rules (deploy/prometheus). Everything lives in a temp
# dir and is torn down on Ctrl-C (or SIGTERM).
#
# DEMO_PORT_OFFSET shifts every port and DEMO_BIN names the binary (the
# demo's test, test/integration/demo_test.go, runs it beside other tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${DEMO_BIN:-$root/bin/go-sentinel}
off=${DEMO_PORT_OFFSET:-0}
master=$((6380 + off))
sentinels=($((26379 + off)) $((26380 + off)) $((26381 + off)))
metrics=($((9355 + off)) $((9356 + off)) $((9357 + off)))
prom=$((9090 + off))
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

for port in $master $((master + 1)) $((master + 2)); do
  mkdir -p "$work/redis-$port"
  args=(--port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/redis-$port" --logfile redis.log)
  [ "$port" != "$master" ] && args+=(--replicaof 127.0.0.1 "$master")
  redis-server "${args[@]}" & pids+=($!)
done
for k in 0 1 2; do
  port=${sentinels[$k]}
  mkdir -p "$work/sentinel-$port"
  cat >"$work/sentinel-$port/sentinel.conf" <<CONF
port $port
bind 127.0.0.1
sentinel monitor mymaster 127.0.0.1 $master 2
sentinel down-after-milliseconds mymaster 5000
sentinel failover-timeout mymaster 60000
logfile "$work/sentinel-$port/sentinel.log"
metrics-addr 127.0.0.1:${metrics[$k]}
CONF
  "$bin" "$work/sentinel-$port/sentinel.conf" & pids+=($!)
done

promtext=""
if [ "${DEMO_PROMETHEUS:-0}" = 1 ]; then
  if ! command -v prometheus >/dev/null 2>&1; then
    echo "DEMO_PROMETHEUS=1: prometheus is not installed (make deps installs Debian's)" >&2
    exit 1
  fi
  mkdir -p "$work/prometheus"
  cat >"$work/prometheus/prometheus.yml" <<CONF
global:
  scrape_interval: 5s
  evaluation_interval: 5s
rule_files: ["$root/deploy/prometheus/go-sentinel-rules.yml"]
scrape_configs:
  - job_name: go-sentinel
    static_configs:
      - targets: ["127.0.0.1:${metrics[0]}", "127.0.0.1:${metrics[1]}", "127.0.0.1:${metrics[2]}"]
CONF
  prometheus --config.file="$work/prometheus/prometheus.yml" --storage.tsdb.path="$work/prometheus/data" \
    --web.listen-address="127.0.0.1:$prom" --log.level=warn >"$work/prometheus/prometheus.log" 2>&1 & pids+=($!)
  promtext="
Prometheus, with go-sentinel's alert rules loaded:
  http://127.0.0.1:$prom/alerts              # SentinelMasterDown, SentinelFailoverAborted, ...
  curl -s 127.0.0.1:$prom/api/v1/alerts       # the same as JSON
"
fi
sleep 1
cat <<TXT

go-sentinel demo is running (files in $work):
  master   127.0.0.1:$master, replicas 127.0.0.1:$((master + 1)) and :$((master + 2))
  sentinels on 127.0.0.1:${sentinels[0]}, :${sentinels[1]}, :${sentinels[2]}
  metrics   http://127.0.0.1:${metrics[0]}/metrics (and :${metrics[1]}, :${metrics[2]})

What redis-sentinel has, in another terminal:
  redis-cli -p ${sentinels[0]} SENTINEL GET-MASTER-ADDR-BY-NAME mymaster
  redis-cli -p ${sentinels[0]} INFO sentinel
  redis-cli -p ${sentinels[0]} PSUBSCRIBE '*'          # watch every event
  tail -f $work/sentinel-${sentinels[0]}/sentinel.log

Fail the master, and watch the events above:
  redis-cli -p $master DEBUG SLEEP 30                  # or: kill it (redis-cli -p $master SHUTDOWN NOSAVE)

What go-sentinel adds:
  $bin explain mymaster -p ${sentinels[0]}     # why it has (or has not) failed over, stage by stage
  $bin check $work/sentinel-${sentinels[0]}/sentinel.conf \\
      --sentinels 127.0.0.1:${sentinels[0]},127.0.0.1:${sentinels[1]},127.0.0.1:${sentinels[2]}
                                                       # the topology, checked live
  curl -s 127.0.0.1:${metrics[0]}/metrics | grep -E '^(redis_)?sentinel_'
  redis-cli -p ${sentinels[0]} SENTINEL FAILOVER mymaster COORDINATED   # a failover that loses no write
$promtext
Press Ctrl-C to stop everything.
TXT
wait
