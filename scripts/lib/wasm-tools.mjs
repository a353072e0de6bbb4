// The wasm-bindgen CLI and wasm-opt invocation the build uses, shared with scripts/wasm-size.mjs so
// that the size report optimizes exactly as the shipped build does.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** cargo's install location first (the CLI pinned to the crate's wasm-bindgen), else PATH. */
export const WASM_BINDGEN = [join(homedir(), '.cargo/bin/wasm-bindgen')].find(existsSync) ?? 'wasm-bindgen';

/** The pinned nightly (scripts/nightly-toolchain, which setup.sh installs with rust-src and the wasm
 * target) that builds the shipped .wasm; stable builds and tests everything else. */
export const NIGHTLY = readFileSync(join(root, 'scripts/nightly-toolchain'), 'utf8').trim();

/** What the release build adds to `cargo +NIGHTLY build`: std rebuilt with the crate's profile
 * (-Zbuild-std), its non-generic code optimized for size (formatting, allocation bookkeeping: the
 * kernels' hot code is generic, so it is compiled in this crate at opt-level 3), and
 * `panic=immediate-abort`: a panic (a bug; bad input is an error, never a panic) traps at once
 * instead of formatting a message, so no message formatting and no panic locations ship: 24 KB less
 * gzipped together, no kernel slower (after Maximum/Minimum were written so that this nightly's
 * LLVM vectorizes them too). Build with `--stable` to see a panic's message in the console. */
export const NIGHTLY_CARGO_ARGS = [
  '-Zbuild-std=std,panic_abort',
  ...['std', 'core', 'alloc'].flatMap((p) => ['--config', `profile.release.package.${p}.opt-level="z"`]),
];
// -Zlocation-detail=none: the file/line records `#[track_caller]` code still passes around once
// nothing prints them.
export const NIGHTLY_RUSTFLAGS = ['-Zunstable-options', '-Cpanic=immediate-abort', '-Zlocation-detail=none'];

/** npm `binaryen`, never Debian's (see ../shared/TOOLCHAIN.md: it breaks the externref table). */
export const WASM_OPT = join(root, 'node_modules/.bin/wasm-opt');

/** wasm-opt's -O3 with the features rustc enables by default for wasm32-unknown-unknown, plus SIMD
 * (and relaxed SIMD for that build). The `producers` and `target_features` custom sections are
 * dropped: toolchain metadata for linkers, unused by engines (200 bytes gzipped). */
export function wasmOptArgs({ relaxedSimd = false, threads = false } = {}) {
  const features = ['simd', 'bulk-memory', 'sign-ext', 'mutable-globals', 'nontrapping-float-to-int', 'reference-types', 'multivalue'];
  if (relaxedSimd) features.push('relaxed-simd');
  if (threads) features.push('threads');
  // --low-memory-unused lets -O3 fold `load(p + C)` into `load offset=C (p)`, which differ only
  // when p + C wraps past 4 GiB into the first KiB; Rust's wasm32 layout puts the bottom of a
  // 1 MiB stack there, reached only by an overflow. V8 then addresses without a separate add: the
  // 1x1 conv 2% faster in Node, 2.5 KB less gzipped.
  return ['-O3', '--low-memory-unused', ...features.map((f) => `--enable-${f}`), '--strip-producers', '--strip-target-features'];
}

/** What the threaded builds add to the target features and the link (shared, imported memory; the
 * TLS exports wasm-bindgen's thread start needs). See ../shared/TOOLCHAIN.md, "Wasm threads". */
export const THREADS_TARGET_FEATURES = '+atomics,+bulk-memory';
export const THREADS_LINK_ARGS = [
  '--shared-memory',
  '--max-memory=4294967296',
  '--import-memory',
  '--export=__wasm_init_tls',
  '--export=__tls_size',
  '--export=__tls_align',
  '--export=__tls_base',
].map((a) => `-Clink-arg=${a}`);
