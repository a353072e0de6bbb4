#!/usr/bin/env bash
# Every test of eager-wasm, from a fresh machine: installs what is missing, then runs lint, native
# tests, wasm tests (Node and headless Chromium; plain and relaxed SIMD), the JS API tests (threaded
# and single-threaded builds), TF.js's
# own test suite on the TF.js backend, the npm package check and the demo page end-to-end. Every stage runs; the script fails if any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "setup failed" >&2; exit 1; }
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"

# Disk: on CI (EAGER_WASM_PRUNE=1, set by .ci/run) or with less than 20 GB free, each stage's build
# output is removed as soon as no later stage needs it, and cargo keeps no incremental state. The
# whole run then peaks at about 3 GB instead of about 8 GB.
free_kb() { df -Pk . | awk 'NR==2 {print $4}'; }
free_text() { df -h . | awk 'NR==2 {print $4}'; }
prune="${EAGER_WASM_PRUNE:-0}"
if [ "$prune" != 1 ] && [ "$(free_kb)" -lt $((20 * 1024 * 1024)) ]; then prune=1; fi
if [ "$prune" = 1 ]; then export CARGO_INCREMENTAL=0; fi
echo "disk: $(free_text) free; removing each stage's build output once unused: $([ "$prune" = 1 ] && echo yes || echo no)"
done_with() {
  if [ "$prune" = 1 ]; then rm -rf "$@"; fi
}

passed=0
failed=()
stage() {
  local name="$1"; shift
  printf '\n\033[1;34m==== %s\033[0m\n' "$name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    printf '\033[1;32m==== %s: ok (%ss)\033[0m\n' "$name" $((SECONDS - start))
  else
    failed+=("$name")
    printf '\033[1;31m==== %s: FAILED (%ss)\033[0m\n' "$name" $((SECONDS - start))
  fi
}

stage "cargo fmt --check" cargo fmt --check
stage "layering (no module refers to a higher layer)" node scripts/check-layers.mjs
stage "clippy (host)" cargo clippy --all-targets -- -D warnings
stage "clippy (wasm32)" cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings
stage "clippy (wasm32, graph-model release build: no layers format, the split's loader import)" cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features cold-split -- -D warnings
stage "native tests" cargo test
done_with target/debug
# The build's splitter (scripts/cold-split), a crate of its own.
stage "cold-split: fmt, clippy, tests" bash -c 'cd scripts/cold-split && cargo fmt --check && cargo clippy --release -- -D warnings && cargo test --release'
# WASM_BINDGEN_TEST_TIMEOUT (the browser suite needs more than the runner's default 20 s) is set in
# .cargo/config.toml, where cargo and wasm-pack pick it up.
stage "wasm tests (Node + headless Chromium, SIMD128)" cargo test --target wasm32-unknown-unknown
done_with target/wasm32-unknown-unknown/debug
# The relaxed-SIMD build (fused multiply-add) that init() loads where the engine supports it: the
# same wasm tests, in Chromium and in Node 20 with its relaxed-SIMD flag.
stage "wasm tests (Node + headless Chromium, relaxed SIMD)" env \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" \
  NODE_ARGS=--experimental-wasm-relaxed-simd \
  cargo test --target wasm32-unknown-unknown --target-dir target/relaxed
done_with target/relaxed/wasm32-unknown-unknown/debug target/relaxed/debug
stage "npm run build" npm run build
# The stages below use dist/ and pkg/, not the cargo output of the build.
done_with target/wasm32-unknown-unknown target/relaxed target/layers target/threads
stage "JS API tests (Node: the threaded build, init()'s default there)" npm run test:js
# The same suites on the split single-threaded builds (what a page that is not cross-origin
# isolated loads).
stage "JS API tests (Node, single-threaded builds)" env EAGER_WASM_TEST_THREADS=1 npm run test:js
stage "JS API in headless Chromium" npm run test:chromium
# TF.js's own test suite (tfjs-core 4.22's jasmine specs, unfiltered) on the 'eager-wasm' backend:
# fails on a spec failing that tests/tfjs-suite/ does not list, or a listed one that passes.
stage "TF.js's test suite on the eager-wasm backend (Node + Chromium)" npm run test:tfjs
stage "npm package installs and runs (Node + Chromium)" npm run test:pack
stage "demo page end-to-end (Chromium)" npm run test:e2e
stage "soak, shortened (native + Chromium)" npm run soak -- --quick
stage "fuzz smoke (20 s per target)" bash scripts/fuzz.sh 20

echo
echo "disk: $(free_text) free at the end"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'failed stage: %s\n' "${failed[@]}"
fi
echo "stages: ${passed} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
