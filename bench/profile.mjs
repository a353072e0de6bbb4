#!/usr/bin/env node
// Where eager-wasm's time goes in each zoo model (bench/models/zoo, made by tools/gen_zoo.py):
// `model.profile()` on TF's reference input, kernels cached, the median over runs (11) of each op
// type's total. Node only; needs `npm run build`.
//
//   node bench/profile.mjs [--runs 5] [--top 5] [--json FILE] [name ...]

import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { genCommand, readZooModel, ZOO_MODELS } from './zoo.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(name);
  if (i < 0) return def;
  const v = argv[i + 1];
  argv.splice(i, 2);
  return v;
};
const runs = Number(opt('--runs', 11));
const top = Number(opt('--top', 5));
const jsonOut = opt('--json', null);
const names = argv.length ? argv : ZOO_MODELS;

const api = await import(pathToFileURL(join(root, 'dist/index.js')).href);
await api.init();
const ctx = new api.EagerContext();
const bytes = async (p) => new Uint8Array(await readFile(join(root, p)));
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const report = {};
for (const name of names) {
  const fx = await readZooModel(bytes, name);
  if (!fx) {
    console.log(`${name}: absent: run \`${genCommand(name)}\``);
    continue;
  }
  const model = await ctx.loadGraphModel({ modelJson: fx.modelJson, weights: fx.weights });
  const x = Object.fromEntries(fx.inputs.map((i) => [i.key, ctx.tensor(i.data, i.shape)]));
  // Warm-up as the bench's (>= 5 runs and >= 400 ms): kernels made and cached, and V8 tiers the
  // kernels up from its baseline compiler only after several calls (landmarks' first predicts take
  // 55, 26, 16 ms, then 3.4 ms from about the eighth on), so one warm-up run profiled baseline code.
  for (let i = 0, t0 = performance.now(); i < 5 || performance.now() - t0 < 400; i++) model.profile(x);
  const profiles = Array.from({ length: runs }, () => model.profile(x));
  for (const t of Object.values(x)) t.dispose();
  model.dispose();
  const ops = new Map();
  for (const p of profiles) {
    for (const o of p.byOp) {
      const e = ops.get(o.op) ?? { op: o.op, count: o.count, ms: [] };
      e.ms.push(o.ms);
      ops.set(o.op, e);
    }
  }
  const total = median(profiles.map((p) => p.totalMs));
  const wall = median(profiles.map((p) => p.wallMs));
  // Shares of the summed per-op medians (the median total need not equal their sum).
  const medians = [...ops.values()].map((e) => ({ op: e.op, count: e.count, ms: median(e.ms) }));
  const summed = medians.reduce((a, e) => a + e.ms, 0);
  const byOp = medians.sort((a, b) => b.ms - a.ms).map((e) => ({ ...e, share: e.ms / summed }));
  // The slowest single nodes too: which shapes of an op are the expensive ones.
  const nodes = profiles[0].nodes.map((n, i) => ({
    name: n.name,
    op: n.op,
    ms: median(profiles.map((p) => p.nodes[i].ms)),
    count: n.count,
    shape: n.outputs[0]?.shape,
  }));
  nodes.sort((a, b) => b.ms - a.ms);
  report[name] = { totalMs: total, wallMs: wall, nodes: profiles[0].nodes.length, byOp, slowestNodes: nodes.slice(0, top) };
  console.log(`\n${name}: ${profiles[0].nodes.length} nodes, kernels ${total.toFixed(2)} ms, run ${wall.toFixed(2)} ms (median of ${runs})`);
  for (const o of byOp.slice(0, top)) {
    console.log(`  ${o.op.padEnd(28)} ${String(o.count).padStart(4)} runs  ${o.ms.toFixed(3).padStart(9)} ms ${(o.share * 100).toFixed(1).padStart(5)}%`);
  }
  console.log('  slowest nodes:');
  for (const n of nodes.slice(0, top)) {
    const runsOf = n.count > 1 ? ` (${n.count} runs)` : '';
    console.log(`    ${n.op.padEnd(26)} ${n.ms.toFixed(3).padStart(8)} ms${runsOf}  -> [${n.shape}]  ${n.name}`);
  }
}
ctx.dispose();
if (jsonOut) await writeFile(jsonOut, JSON.stringify(report, null, 1) + '\n');
