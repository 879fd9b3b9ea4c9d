#!/usr/bin/env bash
# Every benchmark answers --help with what it measures and its options, within seconds and
# without starting a run (a full-scale run takes minutes and writes gigabytes), and refuses a flag
# it does not know with exit 2, naming it. Usage: check_help.sh <bench binary>...
set -u
failed=0
for bench in "$@"; do
  name=$(basename "$bench")
  start=$(date +%s)
  help=$(timeout 20 "$bench" --help 2>&1)
  code=$?
  if [ "$code" != 0 ]; then
    echo "$name --help exited $code: $help"; failed=1; continue
  fi
  if [ $(( $(date +%s) - start )) -gt 5 ]; then
    echo "$name --help took more than 5 s: it ran something"; failed=1
  fi
  for word in "$name" "--help" "options"; do
    if ! grep -qiF -- "$word" <<<"$help"; then
      echo "$name --help does not mention $word:"; echo "$help"; failed=1
    fi
  done
  # Each option the help lists shows its default (or says it is required).
  if ! grep -qE -- '--[a-z-]+ +[A-Z]+' <<<"$help"; then
    echo "$name --help lists no option with a value:"; echo "$help"; failed=1
  fi
  wrong=$(timeout 20 "$bench" --no-such-flag 1 2>&1)
  code=$?
  if [ "$code" != 2 ]; then
    echo "$name --no-such-flag exited $code, not 2 (a usage error): $wrong"; failed=1
  elif ! grep -q -- "--no-such-flag" <<<"$wrong"; then
    echo "$name --no-such-flag: the error does not name the flag: $wrong"; failed=1
  fi
done
[ "$failed" = 0 ] && echo "every benchmark answers --help and refuses an unknown flag ($# checked)"
exit "$failed"
