#!/usr/bin/env bash
# `make bench`: every benchmark side by side with its peer or limit, one after the other (they
# would only measure each other if run at once on 2 cores). Output goes to the terminal and to
# build/bench-results.txt; BENCHMARKS.md records a run of it with the machine it ran on.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=build/release/bench
out=build/bench-results.txt
{
  echo "# make bench, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(uname -r)"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for b in lake_bench drain_bench s3_upload_bench outbox_bench part_reader_bench compact_bench \
           table_bench manifest_bench; do
    echo
    echo "## $b"
    "$bin/$b"
  done
} 2>&1 | tee "$out"
