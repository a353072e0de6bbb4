#!/usr/bin/env node
// Builds the npm package into dist/:
//   cargo build --release --target wasm32-unknown-unknown
//   -> wasm-bindgen --target web --out-dir pkg          (CLI pinned to the crate's =0.2.130)
//   -> wasm-opt -O3 --enable-simd ...                    (npm `binaryen`, never Debian's: see
//                                                        ../shared/TOOLCHAIN.md, it breaks the
//                                                        externref table)
//   -> dist/ (wasm-bindgen glue + optimized .wasm + the hand-written wrapper js/index.js, index.d.ts)
//
// We deliberately do not use wasm-pack: cargo + the wasm-bindgen CLI is all it would run, and it is
// one less ~5-minute install on a fresh machine.
//
// Flags: --no-opt (skip wasm-opt, for quick iterations), --skip-cargo (reuse the last cargo build).

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const run = (cmd, argv, opts = {}) => {
  console.log(`$ ${cmd} ${argv.join(' ')}`);
  execFileSync(cmd, argv, { stdio: 'inherit', cwd: root, ...opts });
};
const which = (name, fallbacks) => {
  for (const p of fallbacks) if (existsSync(p)) return p;
  return name;
};

const WASM_BINDGEN_VERSION = '0.2.130';

if (!args.has('--skip-cargo')) {
  run('cargo', ['build', '--release', '--target', 'wasm32-unknown-unknown', '--lib']);
}

const wasmBindgen = which('wasm-bindgen', [join(homedir(), '.cargo/bin/wasm-bindgen')]);
const version = execFileSync(wasmBindgen, ['--version'], { encoding: 'utf8' }).trim();
if (!version.includes(WASM_BINDGEN_VERSION)) {
  console.error(
    `wasm-bindgen CLI is "${version}", the crate pins ${WASM_BINDGEN_VERSION}.\n` +
      `Install it with: cargo install wasm-bindgen-cli --version ${WASM_BINDGEN_VERSION}`,
  );
  process.exit(1);
}
const built = join(root, 'target/wasm32-unknown-unknown/release/eager_wasm.wasm');
rmSync(join(root, 'pkg'), { recursive: true, force: true });
run(wasmBindgen, ['--target', 'web', '--out-dir', 'pkg', '--out-name', 'eager_wasm', built]);

const bgWasm = join(root, 'pkg/eager_wasm_bg.wasm');
if (!args.has('--no-opt')) {
  const wasmOpt = join(root, 'node_modules/.bin/wasm-opt');
  if (!existsSync(wasmOpt)) {
    console.error('wasm-opt missing: run `npm install` (devDependency binaryen@132).');
    process.exit(1);
  }
  // The features rustc enables by default for wasm32-unknown-unknown, plus SIMD (.cargo/config.toml).
  const features = [
    '--enable-simd',
    '--enable-bulk-memory',
    '--enable-sign-ext',
    '--enable-mutable-globals',
    '--enable-nontrapping-float-to-int',
    '--enable-reference-types',
    '--enable-multivalue',
  ];
  run(wasmOpt, ['-O3', ...features, bgWasm, '-o', bgWasm]);
}

const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
for (const f of ['eager_wasm.js', 'eager_wasm.d.ts', 'eager_wasm_bg.wasm', 'eager_wasm_bg.wasm.d.ts']) {
  copyFileSync(join(root, 'pkg', f), join(dist, f));
}
for (const f of ['index.js', 'index.d.ts']) copyFileSync(join(root, 'js', f), join(dist, f));

const wasm = readFileSync(join(dist, 'eager_wasm_bg.wasm'));
const gz = gzipSync(wasm, { level: 9 }).length;
const sizes = { wasmBytes: statSync(join(dist, 'eager_wasm_bg.wasm')).size, wasmGzipBytes: gz };
writeFileSync(join(dist, 'sizes.json'), JSON.stringify(sizes, null, 2) + '\n');
console.log(`dist/eager_wasm_bg.wasm: ${sizes.wasmBytes} bytes, ${sizes.wasmGzipBytes} gzipped`);
