#!/usr/bin/env bash
# Runs every Go fuzz target of go-sentinel, one after the other, each for
# FUZZTIME (default 10m), and prints how many inputs each one ran. A crasher
# is written by Go under the package's testdata/fuzz/<Target>/ and fails the
# run: check it in with a fix, it becomes a regression test of `make test`.
#
#   FUZZTIME=20s ./scripts/fuzz.sh            # every target, short
#   ./scripts/fuzz.sh FuzzQueryReader FuzzParse  # only the named targets
#
# FUZZPARALLEL sets the number of fuzzing workers (default 1: the targets
# are CPU-heavy and the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null 2>&1 || export PATH=$PATH:/usr/local/go/bin
FUZZTIME=${FUZZTIME:-10m}
FUZZPARALLEL=${FUZZPARALLEL:-1}

# package target: the parsers and the code that consumes what they parse.
targets=(
  "./internal/respserver FuzzQueryReader"
  "./internal/respserver FuzzServerConn"
  "./internal/acl FuzzACLRules"
  "./internal/gossip FuzzDecodeHello"
  "./internal/monitor FuzzHelloThroughCore"
  "./internal/monitor FuzzParseInfo"
  "./internal/monitor FuzzInfoThroughCore"
  "./internal/config FuzzParse"
  "./internal/splitargs FuzzSplit"
  "./internal/glob FuzzMatch"
)

only=" $* "
summary=()
status=0
for t in "${targets[@]}"; do
  pkg=${t% *}
  name=${t#* }
  if [ "$only" != "  " ] && [[ "$only" != *" $name "* ]]; then
    continue
  fi
  echo "=== $name ($pkg) for $FUZZTIME"
  log=$(mktemp)
  start=$(date +%s)
  # -fuzzminimizetime bounds the time spent shrinking each new input, which
  # otherwise eats the run on large inputs (config files).
  if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 10s \
      -parallel "$FUZZPARALLEL" "$pkg" 2>&1 | tee "$log"; then
    result=ok
  else
    result=FAIL
    status=1
  fi
  secs=$(( $(date +%s) - start ))
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  rm -f "$log"
  summary+=("$(printf '%-22s %-22s %4s  %6ss  %s execs' "$name" "$pkg" "$result" "$secs" "${execs:-?}")")
done
echo
echo "=== fuzz summary (FUZZTIME=$FUZZTIME)"
printf '%s\n' "${summary[@]}"
exit $status
