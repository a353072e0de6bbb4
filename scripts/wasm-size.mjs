#!/usr/bin/env node
// Where the bytes of the shipped .wasm go: code size per module (eager-wasm's own modules, kernels
// by family; dependencies by crate), raw and gzipped, plus the data segments.
//
//   npm run build && npm run size        (or: node scripts/wasm-size.mjs [cargo's eager_wasm.wasm])
//
// It runs the build's wasm-bindgen and `wasm-opt -O3` again on cargo's output (the plain SIMD128
// build), keeping the function names (-g), so the functions are the shipped ones. Each group is
// gzipped on its own, so the column sums to a little more than the whole file gzipped. The last two
// columns split each group as the build does (scripts/cold-split): the part init() loads and the
// part loaded on demand (they do not count the split's stubs and tables).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { coldSplitBinary, HOT_LIST, hotListsFor } from './lib/cold-split.mjs';
import { WASM_BINDGEN, WASM_OPT, wasmOptArgs } from './lib/wasm-tools.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const input = (process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : null) ?? join(root, 'target/wasm32-unknown-unknown/release/eager_wasm.wasm');
const dir = mkdtempSync(join(tmpdir(), 'wasm-size-'));
const named = join(dir, 'named.wasm');
execFileSync(WASM_BINDGEN, ['--target', 'web', '--out-dir', dir, '--out-name', 'eager_wasm', input], { stdio: 'inherit' });
execFileSync(WASM_OPT, [...wasmOptArgs(), '-g', join(dir, 'eager_wasm_bg.wasm'), '-o', named], { stdio: 'inherit' });
const b = readFileSync(named);
// Which functions the split puts in the on-demand part (the splitter decides; see build.mjs).
let cold = null;
try {
  const out = execFileSync(coldSplitBinary(), ['cold', named, ...hotListsFor(false)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  cold = new Set(out.trim().split('\n').map(Number));
} catch (e) {
  console.warn(`no init/on-demand columns: ${e.message.split('\n')[0]}`);
}
rmSync(dir, { recursive: true, force: true });

let pos = 8;
const leb = () => {
  let r = 0, s = 0, x;
  do { x = b[pos++]; r += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80);
  return r;
};
const name = () => { const n = leb(); const s = b.subarray(pos, pos + n).toString('utf8'); pos += n; return s; };
const bodies = [];
const names = new Map();
let imported = 0;
let data = Buffer.alloc(0);
while (pos < b.length) {
  const id = b[pos++];
  const size = leb();
  const end = pos + size;
  if (id === 2) {
    for (let n = leb(); n > 0; n--) {
      name(); name();
      const kind = b[pos++];
      if (kind === 0) { leb(); imported++; }
      else if (kind === 1) { pos++; const flags = leb(); leb(); if (flags & 1) leb(); }
      else if (kind === 2) { const flags = leb(); leb(); if (flags & 1) leb(); }
      else if (kind === 3) pos += 2;
      else leb(); // tag
    }
  } else if (id === 10) {
    for (let n = leb(); n > 0; n--) { const len = leb(); bodies.push(b.subarray(pos, pos + len)); pos += len; }
  } else if (id === 11) {
    data = b.subarray(pos, end);
  } else if (id === 0 && name() === 'name') {
    while (pos < end) {
      const sub = b[pos++];
      const subEnd = leb() + pos;
      if (sub === 1) for (let n = leb(); n > 0; n--) { const idx = leb(); names.set(idx, name()); }
      pos = subEnd;
    }
  }
  pos = end;
}

// eager_wasm::kernels::nn::gemm::.. -> "kernels::nn"; eager_wasm::model::.. -> "model";
// <serde_json::..> -> "serde (derive, serde_json)"; core/alloc/std -> "Rust std".
function group(fn) {
  const n = fn.replace(/\[[0-9a-f]+\]/g, '').replace(/^<+/, '');
  const p = n.split('::');
  if (p[0] === 'eager_wasm') return p[1] === 'kernels' && p.length > 3 ? `kernels::${p[2]}` : p[1];
  if (/serde|Deserializ/.test(n)) return 'serde (derive, serde_json)';
  if (['core', 'alloc', 'std', 'compiler_builtins', 'dlmalloc'].includes(p[0]) || /^&?(mut )?[TUf]\d*( |>)|^(f32|f64|u\d+|i\d+|usize|char|str)/.test(n)) return 'Rust std (core, alloc, fmt, dlmalloc)';
  if (/wasm_bindgen|js_sys|shim|^__wbg|^__wbindgen|^__externref/.test(n)) return 'wasm-bindgen glue and export shims';
  if (/^[a-z]+[A-Z]\w*$/.test(p[0]) || /^wasm(context|model)_/.test(p[0])) return 'wasm-bindgen glue and export shims';
  return p[0];
}
const groups = new Map(); // group -> { all, init, cold }: function bodies
const groupOf = (g) => {
  if (!groups.has(g)) groups.set(g, { all: [], init: [], cold: [] });
  return groups.get(g);
};
bodies.forEach((body, i) => {
  const g = groupOf(group(names.get(i + imported) ?? '?'));
  g.all.push(body);
  (cold?.has(i + imported) ? g.cold : g.init).push(body);
});
groupOf('data segments (strings, tables)').all.push(data);
groupOf('data segments (strings, tables)').init.push(data); // data stays in the primary part
const gz = (bufs) => (bufs.length === 0 ? 0 : gzipSync(Buffer.concat(bufs), { level: 9 }).length);
const rows = [...groups].map(([g, parts]) => ({
  g,
  raw: parts.all.reduce((a, x) => a + x.length, 0),
  gz: gz(parts.all),
  init: gz(parts.init),
  cold: gz(parts.cold),
}));
rows.sort((x, y) => y.gz - x.gz);
const sum = (rs, k) => rs.reduce((a, r) => a + r[k], 0);
const total = sum(rows, 'gz');
console.log(`${input}: ${b.length} bytes once optimized (with names); groups gzipped separately sum to ${total}`);
const splitCols = cold !== null;
if (splitCols) {
  console.log(`split by ${HOT_LIST.slice(root.length + 1)}: ${sum(rows, 'init')} gzipped at init, ${sum(rows, 'cold')} on demand (groups summed)`);
}
const cols = (r) =>
  String(r.raw).padStart(10) + String(r.gz).padStart(10) + (splitCols ? String(r.init).padStart(10) + String(r.cold).padStart(11) : '');
console.log('group'.padEnd(40) + 'raw'.padStart(10) + 'gzipped'.padStart(10) + (splitCols ? 'at init'.padStart(10) + 'on demand'.padStart(11) : '') + 'share'.padStart(8));
for (const r of rows.filter((r) => r.gz >= 1000)) {
  console.log(r.g.padEnd(40) + cols(r) + `${((100 * r.gz) / total).toFixed(1)}%`.padStart(8));
}
const rest = rows.filter((r) => r.gz < 1000);
const restRow = { raw: sum(rest, 'raw'), gz: sum(rest, 'gz'), init: sum(rest, 'init'), cold: sum(rest, 'cold') };
console.log(`(${rest.length} smaller groups)`.padEnd(40) + cols(restRow));
const kernels = rows.filter((r) => r.g.startsWith('kernels'));
console.log(`all kernels: ${kernels.reduce((a, r) => a + r.gz, 0)} bytes gzipped (groups summed)`);

// `--top N`: the N largest functions, for finding what to cut; `--group TEXT` keeps the functions
// of the groups whose name contains TEXT (e.g. `--top 30 --group bindings`).
const topAt = process.argv.indexOf('--top');
const groupAt = process.argv.indexOf('--group');
const only = groupAt > 0 ? process.argv[groupAt + 1] : null;
if (topAt > 0) {
  const n = Number(process.argv[topAt + 1] ?? 40);
  const fns = bodies
    .map((body, i) => ({ name: names.get(i + imported) ?? '?', raw: body.length }))
    .filter((f) => only === null || group(f.name).includes(only));
  fns.sort((x, y) => y.raw - x.raw);
  for (const f of fns.slice(0, n)) console.log(String(f.raw).padStart(8) + '  ' + f.name.slice(0, 150));
}
