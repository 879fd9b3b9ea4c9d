#!/usr/bin/env bash
# Writes a help2man include file whose COMMANDS section is the --help of every verb (and of each
# sub-verb, such as `drain ledger`), read from the binary itself so the page never lags the flags.
# Usage: commands.sh <sinkd binary> <output file>
set -euo pipefail
bin=$1
out=$2

# The names listed under "Subcommands:" in `sinkd [verb] --help`.
subcommands() {
  "$bin" "$@" --help | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p'
}
# Help text as literal roff: backslashes escaped, a leading dot or quote defused, and hyphens
# kept ASCII (a plain - may print as U+2010, and a copied flag would not work).
roff() {
  sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\([.']\)/\\\\\&\1/"
}
section() {
  printf '.SS "sinkd %s"\n.nf\n' "$*"
  "$bin" "$@" --help | roff
  printf '.fi\n'
}

{
  printf '[COMMANDS]\n'
  for verb in $(subcommands); do
    subs=$(subcommands "$verb")
    if [ -z "$subs" ]; then
      section "$verb"
    else
      for sub in $subs; do section "$verb" "$sub"; done
    fi
  done
} > "$out.tmp"
mv "$out.tmp" "$out"
