#!/usr/bin/env bash
# The README's first command: installs what is missing, builds the package (only when its sources
# changed since the last build), then serves the demo page and prints its URL.
#
#   bash scripts/demo.sh          (or: npm run demo)
#   PORT=9000 bash scripts/demo.sh    FORCE_BUILD=1 bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

# dist/ is stale if anything it is built from is newer than the built .wasm.
wasm=dist/eager_wasm_bg.wasm
stale=0
if [ "${FORCE_BUILD:-0}" = 1 ] || [ ! -f "$wasm" ] || [ ! -f dist/eager_wasm_layers_relaxed_bg.wasm ] || [ ! -f dist/eager_wasm_layers_relaxed_cold.wasm ] || [ ! -f dist/index.js ]; then
  stale=1
elif [ -n "$(find src js Cargo.toml Cargo.lock scripts/build.mjs scripts/lib/wasm-tools.mjs scripts/lib/cold-split.mjs scripts/cold-split/src scripts/cold-split/hot.txt scripts/cold-split/hot-layers.txt scripts/nightly-toolchain .cargo -newer "$wasm" -type f -print -quit 2>/dev/null)" ]; then
  stale=1
fi
if [ "$stale" = 1 ]; then
  npm run build
else
  printf '\033[1;34m[demo]\033[0m dist/ is up to date (FORCE_BUILD=1 to rebuild)\n'
fi

printf '\033[1;34m[demo]\033[0m open the URL below in a browser\n'
exec node scripts/serve.mjs
