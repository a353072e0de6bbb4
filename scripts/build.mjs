#!/usr/bin/env node
// Builds the npm package into dist/, four times over for the four wasm builds (graph models alone or
// with the layers format, each with plain SIMD128 and with relaxed SIMD; see `variants`):
//   cargo build --release --target wasm32-unknown-unknown
//   -> wasm-bindgen --target web --out-dir pkg          (CLI pinned to the crate's =0.2.130)
//   -> wasm-opt -O3 --enable-simd ...                    (npm `binaryen`, never Debian's: see
//                                                        ../shared/TOOLCHAIN.md, it breaks the
//                                                        externref table)
//   -> cold-split split                                  (scripts/cold-split: the primary .wasm,
//                                                        which init() loads, and the cold one,
//                                                        loaded on first use; by hot.txt, and
//                                                        hot-layers.txt for the layers builds)
//   -> dist/ (wasm-bindgen glue + the four builds' primary and cold .wasm + the hand-written
//      wrapper: js/*.js, the entry index.js and its modules, and index.d.ts)
//
// We deliberately do not use wasm-pack: cargo + the wasm-bindgen CLI is all it would run, and it is
// one less ~5-minute install on a fresh machine.
//
// The .wasm is built by a pinned nightly (scripts/nightly-toolchain) for -Zbuild-std and
// panic=immediate-abort (see NIGHTLY_CARGO_ARGS in lib/wasm-tools.mjs).
//
// Flags: --no-opt (skip wasm-opt and the split, for quick iterations), --no-split (one .wasm per
// build, as before the split), --skip-cargo (reuse the last cargo build),
// --stable (the stable toolchain and plain panic=abort: panics print their message in the console;
// the .wasm is about 24 KB bigger gzipped).

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { COLD_SPLIT, coldSplitBinary, hotListsFor, SPLIT_VARIANTS } from './lib/cold-split.mjs';
import {
  NIGHTLY,
  NIGHTLY_CARGO_ARGS,
  NIGHTLY_RUSTFLAGS,
  THREADS_LINK_ARGS,
  THREADS_TARGET_FEATURES,
  WASM_BINDGEN,
  WASM_OPT,
  wasmOptArgs,
} from './lib/wasm-tools.mjs';
import { glueFacade } from './lib/glue-facade.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const run = (cmd, argv, opts = {}) => {
  console.log(`$ ${cmd} ${argv.join(' ')}`);
  execFileSync(cmd, argv, { stdio: 'inherit', cwd: root, ...opts });
};

const WASM_BINDGEN_VERSION = '0.2.130';

const version = execFileSync(WASM_BINDGEN, ['--version'], { encoding: 'utf8' }).trim();
if (!version.includes(WASM_BINDGEN_VERSION)) {
  console.error(
    `wasm-bindgen CLI is "${version}", the crate pins ${WASM_BINDGEN_VERSION}.\n` +
      `Install it with: cargo install wasm-bindgen-cli --version ${WASM_BINDGEN_VERSION}`,
  );
  process.exit(1);
}
const stable = args.has('--stable');
/** The pinned nightly is installed with what -Zbuild-std needs (std's sources, the wasm target). */
function nightlyReady() {
  try {
    const rustc = ['run', NIGHTLY, 'rustc', '--print', 'sysroot'];
    const sysroot = execFileSync('rustup', rustc, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return ['lib/rustlib/src/rust/library', 'lib/rustlib/wasm32-unknown-unknown'].every((d) => existsSync(join(sysroot, d)));
  } catch {
    return false;
  }
}
if (!stable && !args.has('--skip-cargo') && !nightlyReady()) {
  console.error(
    `The release build needs ${NIGHTLY} with rust-src and the wasm32 target: run \`bash scripts/setup.sh\`\n` +
      `(or: rustup toolchain install ${NIGHTLY} --profile minimal --component rust-src --target wasm32-unknown-unknown),\n` +
      'or build with the stable toolchain: npm run build -- --stable',
  );
  process.exit(1);
}
if (!args.has('--no-opt') && !existsSync(WASM_OPT)) {
  console.error('wasm-opt missing: run `npm install` (devDependency binaryen@132).');
  process.exit(1);
}

// Panic locations embed the path of each dependency source file; cargo's registry prefix (home
// directory, index hash) is cut from them: 100 bytes less gzipped, and the same on every machine.
const registry = join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'registry', 'src');
const remaps = (existsSync(registry) ? readdirSync(registry) : [])
  .map((d) => `--remap-path-prefix=${join(registry, d)}/=`)
  .filter((f) => !/\s/.test(f)); // the env var below is split on whitespace

// Four builds of the same source: plain SIMD128 (every engine with SIMD) and SIMD128 + relaxed SIMD
// (fused multiply-add in the GEMM and depthwise kernels), which init() picks where the engine
// validates relaxed-SIMD code (Chromium 114+, Node 22+); each of those for graph models alone
// (the default download) and with the layers format (cargo feature `layers`, init({ layers: true }),
// about 85 KB more gzipped). Each has its own target dir so switching does not rebuild the others.
const variants = SPLIT_VARIANTS.map((v) => ({
  ...v,
  rustFeatures: v.relaxed ? '+simd128,+relaxed-simd' : '+simd128',
  cargoArgs: [...(v.layers ? [] : ['--no-default-features']), '--features', 'cold-split'],
  targetDir: `target${v.layers ? '/layers' : ''}${v.relaxed ? '/relaxed' : ''}`,
}));
// Each build is split in two (scripts/cold-split, after wasm-opt, which keeps the function names
// for it): the functions scripts/cold-profile.mjs saw run, which init() loads, and the rest, loaded
// on first use (js/cold-code.js). pkg/ keeps the unsplit module, with names, for the profile.
const split = !args.has('--no-opt') && !args.has('--no-split');
if (split) coldSplitBinary();
rmSync(join(root, 'pkg'), { recursive: true, force: true });
for (const v of variants) {
  // The stable build has a target dir of its own: the nightly one rebuilds std, it does not.
  const targetDir = stable ? `${v.targetDir}/stable` : v.targetDir;
  if (!args.has('--skip-cargo')) {
    const build = ['build', '--release', '--target', 'wasm32-unknown-unknown', '--lib', '--target-dir', targetDir, ...v.cargoArgs];
    const argv = stable ? build : [`+${NIGHTLY}`, ...build, ...NIGHTLY_CARGO_ARGS];
    const rustflags = [`-C target-feature=${v.rustFeatures}`, ...(stable ? [] : NIGHTLY_RUSTFLAGS), ...remaps];
    // Replaces .cargo/config.toml's target rustflags for this build.
    run('cargo', argv, { env: { ...process.env, CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS: rustflags.join(' ') } });
  }
  const built = join(root, targetDir, 'wasm32-unknown-unknown/release/eager_wasm.wasm');
  run(WASM_BINDGEN, ['--target', 'web', '--out-dir', v.out, '--out-name', 'eager_wasm', built]);
  const bgWasm = join(root, v.out, 'eager_wasm_bg.wasm');
  if (!args.has('--no-opt')) {
    run(WASM_OPT, [...wasmOptArgs({ relaxedSimd: v.relaxed }), ...(split ? ['-g'] : []), bgWasm, '-o', bgWasm]);
  }
  mkdirSync(join(root, v.out, 'dist'));
  if (split) {
    const parts = [join(root, v.out, 'dist', v.wasm), join(root, v.out, 'dist', v.cold)];
    run(COLD_SPLIT, ['split', bgWasm, ...parts, ...hotListsFor(v.layers)]);
  } else {
    copyFileSync(bgWasm, join(root, v.out, 'dist', v.wasm));
  }
}
// The threaded builds (graph models; plain and relaxed SIMD): shared memory and atomics, which need
// std rebuilt (-Zbuild-std), so the stable toolchain makes none. Not split: a worker runs kernels
// on its own instance of the module, which the on-demand part would have to reach as well.
const threadVariants = stable
  ? []
  : [false, true].map((relaxed) => ({
      name: `graph, ${relaxed ? 'relaxed-simd' : 'simd'}, threads`,
      relaxed,
      out: `pkg/t${relaxed ? '_relaxed' : ''}`,
      wasm: `eager_wasm_threads${relaxed ? '_relaxed' : ''}_bg.wasm`,
      rustFeatures: `+simd128,${THREADS_TARGET_FEATURES}${relaxed ? ',+relaxed-simd' : ''}`,
      targetDir: `target/threads${relaxed ? '/relaxed' : ''}`,
    }));
if (stable) console.warn('--stable: no threaded builds (they need -Zbuild-std)');
for (const v of threadVariants) {
  if (!args.has('--skip-cargo')) {
    const build = ['build', '--release', '--target', 'wasm32-unknown-unknown', '--lib', '--target-dir', v.targetDir, '--no-default-features'];
    const rustflags = [`-C target-feature=${v.rustFeatures}`, ...NIGHTLY_RUSTFLAGS, ...THREADS_LINK_ARGS, ...remaps];
    run('cargo', [`+${NIGHTLY}`, ...build, ...NIGHTLY_CARGO_ARGS], {
      env: { ...process.env, CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS: rustflags.join(' ') },
    });
  }
  const built = join(root, v.targetDir, 'wasm32-unknown-unknown/release/eager_wasm.wasm');
  run(WASM_BINDGEN, ['--target', 'web', '--out-dir', v.out, '--out-name', 'eager_wasm', built]);
  const bgWasm = join(root, v.out, 'eager_wasm_bg.wasm');
  if (!args.has('--no-opt')) run(WASM_OPT, [...wasmOptArgs({ relaxedSimd: v.relaxed, threads: true }), bgWasm, '-o', bgWasm]);
}

// One glue module serves all builds: they export and import the same functions.
const glue = (v) => readFileSync(join(root, v.out, 'eager_wasm.js'), 'utf8');
for (const v of variants.slice(1)) {
  if (glue(v) !== glue(variants[0])) {
    console.error(`the wasm-bindgen glue of the ${v.name} build differs: the builds cannot share dist/eager_wasm.js`);
    process.exit(1);
  }
}

// And one the threaded builds (it imports a shared memory and starts threads).
for (const v of threadVariants.slice(1)) {
  if (glue(v) !== glue(threadVariants[0])) {
    console.error(`the wasm-bindgen glue of the ${v.name} build differs from the other threaded build's`);
    process.exit(1);
  }
}

const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
// dist/eager_wasm.js is a facade over the two glues (scripts/lib/glue-facade.mjs): the wrapper's
// modules import from it, and init() points it at the threaded glue when it loads a threaded build.
copyFileSync(join(root, variants[0].out, 'eager_wasm.js'), join(dist, 'eager_wasm_single.js'));
const threadedGlue = threadVariants.length ? glue(threadVariants[0]) : null;
if (threadedGlue !== null) writeFileSync(join(dist, 'eager_wasm_threads.js'), threadedGlue);
writeFileSync(join(dist, 'eager_wasm.js'), glueFacade(glue(variants[0]), threadedGlue));
copyFileSync(join(root, variants[0].out, 'eager_wasm_bg.wasm.d.ts'), join(dist, 'eager_wasm_bg.wasm.d.ts'));
writeFileSync(
  join(dist, 'eager_wasm.d.ts'),
  readFileSync(join(root, variants[0].out, 'eager_wasm.d.ts'), 'utf8') +
    '\n/** Points every export at another wasm-bindgen glue module (the threaded one). */\nexport function useGlue(other: object): void;\n',
);
for (const v of variants) {
  copyFileSync(join(root, v.out, 'dist', v.wasm), join(dist, v.wasm));
  if (split) copyFileSync(join(root, v.out, 'dist', v.cold), join(dist, v.cold));
}
for (const v of threadVariants) copyFileSync(join(root, v.out, 'eager_wasm_bg.wasm'), join(dist, v.wasm));
// The wrapper: index.js (the entry) and the modules it imports, all next to the glue.
for (const f of readdirSync(join(root, 'js'))) {
  if (f.endsWith('.js') || f.endsWith('.d.ts')) copyFileSync(join(root, 'js', f), join(dist, f));
}

const sizeOf = (f) => {
  const bytes = readFileSync(join(dist, f));
  return { wasmBytes: bytes.length, wasmGzipBytes: gzipSync(bytes, { level: 9 }).length };
};
const sizes = variants.map((v) => {
  const size = sizeOf(v.wasm);
  if (!split) return size;
  const cold = sizeOf(v.cold);
  return { ...size, coldWasmBytes: cold.wasmBytes, coldWasmGzipBytes: cold.wasmGzipBytes };
});
variants.forEach((v, i) => {
  const cold = split ? `; on demand: dist/${v.cold}, ${sizes[i].coldWasmGzipBytes} gzipped` : '';
  console.log(`dist/${v.wasm} (${v.name}): ${sizes[i].wasmBytes} bytes, ${sizes[i].wasmGzipBytes} gzipped${cold}`);
});
// Top level: the plain graph build (the default download where relaxed SIMD is missing); the others
// by name.
const threadSizes = threadVariants.map((v) => sizeOf(v.wasm));
threadVariants.forEach((v, i) => console.log(`dist/${v.wasm} (${v.name}): ${threadSizes[i].wasmBytes} bytes, ${threadSizes[i].wasmGzipBytes} gzipped, not split`));
const threaded = threadSizes.length ? { threads: threadSizes[0], threadsRelaxedSimd: threadSizes[1] } : {};
writeFileSync(
  join(dist, 'sizes.json'),
  JSON.stringify({ ...sizes[0], relaxedSimd: sizes[1], layers: sizes[2], layersRelaxedSimd: sizes[3], ...threaded }, null, 2) + '\n',
);
