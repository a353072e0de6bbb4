#!/usr/bin/env bash
# Runs every cargo-fuzz target for N seconds (default 60), after replaying the inputs of past
# findings (fuzz/regressions/<target>/). A crash fails the run and is saved in
# fuzz/artifacts/<target>/; each one found becomes a regression input. Long run: bash scripts/fuzz.sh 3600
# FUZZ_TARGETS="model_load" restricts the targets.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${1:-60}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
nightly="+$(cat ../scripts/nightly-toolchain)"
# Built first, so that a build failure (no disk, a toolchain problem) is not reported as a crash.
if ! cargo "$nightly" fuzz build >"$log" 2>&1; then
  tail -40 "$log"
  echo "the fuzz targets failed to build" >&2
  exit 1
fi
for target in ${FUZZ_TARGETS:-$(cargo "$nightly" fuzz list)}; do
  if compgen -G "regressions/$target/*" >/dev/null; then
    echo "== $target: replaying $(ls "regressions/$target" | wc -l) regression inputs"
    if ! cargo "$nightly" fuzz run "$target" "regressions/$target"/* -- -runs=1 >"$log" 2>&1; then
      tail -60 "$log"
      echo "fuzz target $target fails on a regression input (fuzz/regressions/$target)" >&2
      exit 1
    fi
  fi
  # New inputs go to corpus/<target> (not committed); seeds/<target> are starting points.
  corpus=("corpus/$target")
  mkdir -p "corpus/$target"
  if [ -d "seeds/$target" ]; then corpus+=("seeds/$target"); fi
  echo "== fuzz $target for ${seconds}s"
  if ! cargo "$nightly" fuzz run "$target" "${corpus[@]}" -- -max_total_time="$seconds" -rss_limit_mb=4096 >"$log" 2>&1; then
    tail -60 "$log"
    echo "fuzz target $target found a crash (input saved under fuzz/artifacts/$target)" >&2
    exit 1
  fi
  grep -E "^Done [0-9]+ runs" "$log" || tail -5 "$log"
done
