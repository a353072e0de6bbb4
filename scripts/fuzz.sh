#!/usr/bin/env bash
# Runs every cargo-fuzz target for N seconds (default 60). A crash fails the run and is saved in
# fuzz/artifacts/<target>/; each one found becomes a regression test. Long run: bash scripts/fuzz.sh 3600
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${1:-60}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
nightly="+$(cat ../scripts/nightly-toolchain)"
for target in $(cargo "$nightly" fuzz list); do
  echo "== fuzz $target for ${seconds}s"
  if ! cargo "$nightly" fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 >"$log" 2>&1; then
    tail -60 "$log"
    echo "fuzz target $target found a crash (input saved under fuzz/artifacts/$target)" >&2
    exit 1
  fi
  grep -E "^Done [0-9]+ runs" "$log" || tail -5 "$log"
done
