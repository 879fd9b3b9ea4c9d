#!/usr/bin/env bash
# `make demo`: the main job end to end on a local default. Generates realistic ledger and audit
# traffic (with a few bad records), imports it into ./lake exactly as a drain would, replays part
# of it again (at-least-once delivery means duplicates), and shows what DuckDB reads.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sinkd=build/release/src/cli/sinkd
run=demo-run
rm -rf lake "$run"
mkdir -p "$run"

"$sinkd" generate ledger --messages 400 --seed 7 --bad-share 0.001 -o "$run/ledger.bin"
"$sinkd" generate audit --messages 20000 --seed 8 --bad-share 0.001 -o "$run/audit.bin"
"$sinkd" import ledger --lake-dir lake --instance-id demo-a "$run/ledger.bin" 2>"$run/import-ledger.log"
"$sinkd" import audit --lake-dir lake --instance-id demo-a "$run/audit.bin" 2>"$run/import-audit.log"
# A redelivery: the first 50 ledger messages arrive again and are written again by another
# instance. Readers see the duplicates disappear under the dedupe query.
"$sinkd" generate ledger --messages 50 --expected-events 200000 --seed 7 --bad-share 0.001 \
  -o "$run/ledger-redelivered.bin"
"$sinkd" import ledger --lake-dir lake --instance-id demo-b "$run/ledger-redelivered.bin" \
  2>"$run/import-redelivered.log"
echo
echo "logs: $run/import-*.log (JSON lines)"
node tools/lake-summary.mjs lake
