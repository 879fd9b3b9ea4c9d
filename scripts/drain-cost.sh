#!/usr/bin/env bash
# The drain's cost against the import's on the same events: CPU seconds (user + sys), wall and peak
# RSS of `sinkd import ledger` and of `sinkd drain ledger` (default batch settings, --batch-interval
# 1s as bench/drain_bench.cc runs it), on drain_bench's events: seed 2026, Batches of 500.
# Usage: scripts/drain-cost.sh [BUILD_DIR] [EVENTS]    (default build/release, 1000000)
# DRAIN_WRAP / IMPORT_WRAP prefix the command (e.g. "perf record -o FILE --").
# The drain's wall time runs from its start to the log line that acks the last message.
set -euo pipefail
build=${1:-build/release}
events=${2:-1000000}
sinkd=$(realpath "$build/src/cli/sinkd")
work=$(mktemp -d /tmp/drain-cost.XXXXXX)
trap 'kill $nats_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
messages=$((events / 500))

nats-server -js -a 127.0.0.1 -p -1 -sd "$work/store" --ports_file_dir "$work" >"$work/nats.log" 2>&1 &
nats_pid=$!
for _ in $(seq 200); do
  url=$(grep -o 'nats://[^"]*' "$work"/*.ports 2>/dev/null | head -1 || true)
  [[ -n "$url" ]] && break
  sleep 0.05
done
[[ -n "$url" ]] || { echo "nats-server did not start" >&2; exit 1; }
"$sinkd" provision --nats-url "$url" >/dev/null
"$sinkd" generate ledger --seed 2026 --events-per-batch 500 --messages "$messages" \
  --expected-events "$events" -o "$work/ledger.bin" >/dev/null
"$sinkd" publish ledger --nats-url "$url" "$work/ledger.bin" >/dev/null

/usr/bin/time -f '%U %S %e %M %R' -o "$work/import.time" \
  ${IMPORT_WRAP:-} "$sinkd" import ledger --lake-dir "$work/lake-import" "$work/ledger.bin" >/dev/null 2>&1
read -r iu is ie im ir <"$work/import.time"

start=$(date +%s.%N)
/usr/bin/time -f '%U %S %e %M %R' -o "$work/drain.time" \
  ${DRAIN_WRAP:-} "$sinkd" drain ledger --nats-url "$url" --lake-dir "$work/lake-drain" --batch-interval 1s \
  >"$work/drain.log" 2>&1 &
time_pid=$!
acked=0
for _ in $(seq 12000); do
  # One process a poll: the five of a grep | cut | paste | bc pipeline every 50 ms took ~10% of
  # the two cores the drain and the broker share (perf record -a), lengthening the drain measured.
  acked=$(awk -F'"acked":' 'NF > 1 { s += $2 + 0 } END { print s + 0 }' "$work/drain.log")
  [[ "${acked:-0}" -ge "$messages" ]] && break
  kill -0 "$time_pid" 2>/dev/null || break  # the drain ended early: its log says why
  sleep 0.05
done
end=$(date +%s.%N)
[[ "${acked:-0}" -ge "$messages" ]] || { echo "drain did not ack $messages messages" >&2; cat "$work/drain.log" >&2; exit 1; }
child=$(pgrep -P "$time_pid")
kill -TERM "$(pgrep -P "$child" || echo "$child")"
wait "$time_pid" || { echo "drain exit non-zero" >&2; cat "$work/drain.log" >&2; exit 1; }
read -r du ds _ dm dr <"$work/drain.time"
dw=$(echo "$end - $start" | bc)

awk -v e="$events" -v iu="$iu" -v is="$is" -v ie="$ie" -v im="$im" \
    -v du="$du" -v ds="$ds" -v dw="$dw" -v dm="$dm" -v ir="$ir" -v dr="$dr" 'BEGIN {
  m = e / 1e6
  printf "machine: nproc %d, load %s\n", '"$(nproc)"', "'"$(cut -d' ' -f1-3 /proc/loadavg)"'"
  printf "import: %8.0f events/s  wall %6.2f s  cpu %6.2f s (%.2f s per M events)  peak RSS %d MiB  minor faults %d\n", e/ie, ie, iu+is, (iu+is)/m, im/1024, ir
  printf "drain:  %8.0f events/s  wall %6.2f s  cpu %6.2f s (%.2f s per M events)  peak RSS %d MiB  minor faults %d\n", e/dw, dw, du+ds, (du+ds)/m, dm/1024, dr
  printf "drain / import rate: %.2f\n", ie/dw
}'
