#!/usr/bin/env bash
# `make demo`: the main job end to end, on this machine. Starts a local nats-server (JetStream,
# temporary store, loopback, ports the OS picks), provisions the three streams, publishes realistic
# ledger Batches and audit Events with a few bad records, runs `sinkd drain ledger` and
# `sinkd drain audit` into ./lake (each keeping its Iceberg table, --table-format iceberg) until they
# have caught up, stops them with SIGTERM, prints what DuckDB reads (rows per date/app, the README's
# dedupe query, dead letters) and each table's snapshots and rows against the unique events,
# adopts a copy of the ledger lake without its table (`sinkd table register`), and stops the
# server.
# Rerunnable: ./lake and ./demo-run are recreated; every process it started is stopped on any exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sinkd=$root/build/release/src/cli/sinkd
run=$root/demo-run
pids=()

stop_pid() {  # SIGTERM, wait up to 15 s, then SIGKILL
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  local pid
  for pid in "${pids[@]}"; do stop_pid "$pid"; done
}
trap cleanup EXIT

field() {  # JSON FIELD: the value of FIELD in the JSON object JSON
  node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$1" "$2"
}
scalar() {  # SQL: the one value DuckDB's answer to SQL holds
  node tools/duckdb-query.mjs "$1" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).rows[0][0]))'
}
trap 'exit 130' INT TERM

rm -rf lake "$run"
mkdir -p "$run/nats"

# 1. A broker of our own: JetStream on, store in demo-run/, loopback only, free ports.
nats-server -js -a 127.0.0.1 -p -1 -m -1 -sd "$run/nats/store" --ports_file_dir "$run/nats" \
  -l "$run/nats/nats.log" &
pids+=($!)
for _ in $(seq 100); do ls "$run"/nats/*.ports >/dev/null 2>&1 && break; sleep 0.1; done
ports=$(cat "$run"/nats/*.ports)
export NATS_URL=$(sed -E 's/.*"nats":\["([^"]+)".*/\1/' <<<"$ports")
monitor=$(sed -E 's/.*"monitoring":\["([^"]+)".*/\1/' <<<"$ports")
echo "nats-server: $NATS_URL (monitoring $monitor)"

# 2. The streams, exactly as configured in code; a second run verifies instead of creating.
"$sinkd" provision

# 3. Traffic: 200,000 ledger events in Batches of 500, 20,000 audit events, ~0.1% bad records.
"$sinkd" generate ledger --messages 400 --seed 7 --bad-share 0.001 -o "$run/ledger.bin"
"$sinkd" generate audit --messages 20000 --seed 8 --bad-share 0.001 -o "$run/audit.bin"
"$sinkd" publish ledger "$run/ledger.bin"
"$sinkd" publish audit "$run/audit.bin"
ledger_msgs=400
audit_msgs=20000

# 4. The drains. Short intervals so the demo does not wait five minutes for its last batch.
start_drain() {  # origin
  "$sinkd" drain "$1" --lake-dir lake --batch-interval 2s --metrics-listen 127.0.0.1:0 \
    --table-format iceberg 2>"$run/drain-$1.log" &
  pids+=($!)
}
start_drain ledger
ledger_pid=${pids[-1]}
start_drain audit
audit_pid=${pids[-1]}

metrics_port() {  # origin
  sed -nE 's/.*"msg":"metrics listening".*"port":([0-9]+).*/\1/p' "$run/drain-$1.log" | head -1
}
metric() {  # port name
  curl -sf "http://127.0.0.1:$1/metrics" | sed -nE "s/^$2\{[^}]*\} ([0-9.e+]+)$/\1/p" | head -1
}
caught_up() {  # origin messages
  local port
  port=$(metrics_port "$1")
  [ -n "$port" ] || return 1
  local seen pending buffered
  seen=$(metric "$port" sinkd_messages_total)
  pending=$(metric "$port" sinkd_consumer_ack_pending)
  buffered=$(metric "$port" sinkd_buffered_rows)
  [ -n "$seen" ] && awk -v s="$seen" -v n="$2" -v p="$pending" -v b="$buffered" \
    'BEGIN { exit !(s >= n && p == 0 && b == 0) }'
}
echo "draining…"
for _ in $(seq 600); do
  if caught_up ledger $ledger_msgs && caught_up audit $audit_msgs; then break; fi
  sleep 0.5
done
caught_up ledger $ledger_msgs && caught_up audit $audit_msgs || {
  echo "the drains did not catch up; logs in $run/drain-*.log" >&2
  exit 1
}
echo "caught up; metrics of the ledger drain:"
curl -sf "http://127.0.0.1:$(metrics_port ledger)/metrics" | grep -E '^sinkd_(messages|rows_flushed|bytes_flushed|flushes|naks|dead_letters)_total' | sed 's/^/  /'

# 5. SIGTERM: each drain flushes what it holds, acks it and exits 0.
for pid in "$ledger_pid" "$audit_pid"; do
  kill -TERM "$pid"
  wait "$pid" || { echo "a drain exited non-zero; see $run/drain-*.log" >&2; exit 1; }
done
echo "drains stopped (exit 0); logs: $run/drain-*.log (JSON lines)"

# 6. What DuckDB reads, and what went to GARM_SINK_DEAD.
node tools/lake-summary.mjs lake

# 7. The Iceberg table each drain kept beside the hive layout (--table-format iceberg): one
# snapshot per flush, and its current snapshot holds exactly the unique events the glob finds.
echo
echo "== Iceberg tables (lake/<table>/metadata/, one append snapshot per flush)"
for table in ledger audit; do
  info=$("$sinkd" table info "$table" --lake-dir lake --json)
  snapshots=$(field "$info" snapshots)
  records=$(field "$info" records)
  unique=$(scalar "SELECT count(DISTINCT event_id) FROM read_parquet('lake/$table/**/*.parquet')")
  verdict="rows = unique events"
  [ "$records" = "$unique" ] || verdict="MISMATCH: rows $records, unique events $unique"
  echo "  $table: snapshots $snapshots, $records rows in the current snapshot; $unique unique events in the hive glob: $verdict"
  [ "$records" = "$unique" ] || exit 1
done

# 8. A lake that kept no table, adopted: a copy of lake/ledger without its metadata/ (what a lake
# drained before tables were kept looks like) is registered by `sinkd table register` from the
# Parts' own footers and stamps, in one snapshot holding every row of the copy; `lake verify`
# then checks that table against the footers and the stream.
echo
echo "== table register: a copy of lake/ledger without its metadata/, adopted"
adopted=$run/adopted
rm -rf "$adopted"
mkdir -p "$adopted"
cp -r lake/ledger "$adopted/ledger"
rm -rf "$adopted/ledger/metadata"
"$sinkd" table register ledger --lake-dir "$adopted" --nats-url "$NATS_URL" 2>"$run/register.log" ||
  { echo "table register failed; see $run/register.log" >&2; exit 1; }
info=$("$sinkd" table info ledger --lake-dir "$adopted" --json)
snapshots=$(field "$info" snapshots)
records=$(field "$info" records)
rows=$(scalar "SELECT count(*) FROM read_parquet('$adopted/ledger/**/*.parquet')")
verdict="rows = the copy's rows"
[ "$records" = "$rows" ] || verdict="MISMATCH: table rows $records, the copy's rows $rows"
echo "  ledger (adopted): snapshots $snapshots, $records rows in the current snapshot; $rows rows in the copy's Parts: $verdict"
[ "$records" = "$rows" ] || exit 1
"$sinkd" lake verify ledger --lake-dir "$adopted" --table-format iceberg --nats-url "$NATS_URL" >"$run/verify-adopted.log" 2>&1 ||
  { echo "lake verify of the adopted table failed; see $run/verify-adopted.log" >&2; exit 1; }
echo "  lake verify --table-format iceberg: passed ($run/verify-adopted.log)"
dead=$(curl -sf "$monitor/jsz?streams=true" |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);
    const st=(j.account_details||[]).flatMap(a=>(a.stream_detail||[])).find(x=>x.name==="GARM_SINK_DEAD");
    console.log(st?st.state.messages:0)})')
echo
echo "== dead letters on GARM_SINK_DEAD: $dead (each with the original bytes and Garm-Dead-* headers)"
