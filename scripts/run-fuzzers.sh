#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR/fuzz briefly (FUZZ_SECONDS each, default 20) from its
# committed seed corpus. A crash, a leak or a differential mismatch fails `make test`.
set -euo pipefail
build_dir=${1:-build/fuzz}
seconds=${FUZZ_SECONDS:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
targets=("$build_dir"/fuzz/fuzz_*)
if ((${#targets[@]} == 0)); then
  echo "run-fuzzers: no fuzz targets in $build_dir/fuzz" >&2
  exit 1
fi
for target in "${targets[@]}"; do
  name=$(basename "$target")
  work=$(mktemp -d)
  seeds="$root/fuzz/corpus/${name#fuzz_}"
  [ -d "$seeds" ] && cp -r "$seeds"/. "$work"/ 2>/dev/null || true
  echo "run-fuzzers: $name for ${seconds}s"
  "$target" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 "$work" \
    2> >(tail -n 25 >&2)
  rm -rf "$work"
done
