#!/usr/bin/env bash
# Installs what building and testing eager-wasm needs on a fresh Debian machine, skipping every
# step whose tool is already present at the right version (a second run costs seconds).
# Facts behind each choice: ../shared/TOOLCHAIN.md.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen crate pinned in Cargo.toml
log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }

if ! command -v cargo >/dev/null; then
  echo "cargo not found: install Rust with rustup first" >&2
  exit 1
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
for c in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$c"; then
    log "adding rustup component $c"
    rustup component add "$c"
  fi
done

# The pinned nightly: it builds the shipped .wasm (-Zbuild-std, which needs std's sources, and
# panic=immediate-abort; see scripts/build.mjs) and runs cargo-fuzz (sanitizer flags).
nightly="$(cat scripts/nightly-toolchain)"
if ! rustup run "$nightly" rustc --version >/dev/null 2>&1 \
  || ! rustup component list --toolchain "$nightly" --installed | grep -q '^rust-src' \
  || ! rustup target list --toolchain "$nightly" --installed | grep -qx wasm32-unknown-unknown; then
  log "installing $nightly with rust-src and the wasm32 target"
  rustup toolchain install "$nightly" --profile minimal --component rust-src --target wasm32-unknown-unknown
fi
if ! command -v cargo-fuzz >/dev/null; then
  log "installing cargo-fuzz (about 2 minutes)"
  cargo install cargo-fuzz
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 6 minutes on 2 cores)"
  # Not --locked: its lock file wants a webpki-roots version the registry here does not serve.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  log "installing Debian's chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

if [ -f package.json ] && { [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  log "installing npm packages"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi
log "toolchain ready"
