#!/usr/bin/env node
// Decides what the primary module of the split build holds (scripts/cold-split): builds an
// instrumented copy of each build (every function flags itself on entry), runs the workload in
// Node with it, and writes the names of the functions that ran: in the graph builds to
// scripts/cold-split/hot.txt, and what the layers builds ran beyond them to hot-layers.txt; and the
// ops the graph workload ran to js/hot-ops.js. Commit all three; `npm run build` splits by them.
//
// The workload is what a page typically does: every benchmark case's eager-wasm side once (the
// dispatch micro-benchmarks, the conv/depthwise/matmul kernels, the sample models and the model zoo
// of bench/models/zoo, so run tools/gen_zoo.py first: an absent zoo model is skipped with a
// warning), the demo's default model through the cache policies, and, in the layers builds, the
// demo's Keras models, loaded and run. Run after `npm run build` (it needs pkg/ and dist/):
//   node scripts/cold-profile.mjs

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COLD_SPLIT, coldSplitBinary, HOT_LIST, HOT_LIST_LAYERS, SPLIT_VARIANTS } from './lib/cold-split.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (process.argv[2] === '--workload') {
  await workload(process.argv[3], process.argv[4]);
  process.exit(0);
}

coldSplitBinary();
const tmp = mkdtempSync(join(tmpdir(), 'cold-profile-'));
const hotNames = { graph: new Set(), layers: new Set() }; // by the builds that ran them
const hotOps = new Set();
try {
  for (const v of SPLIT_VARIANTS) {
    const named = join(root, v.out, 'eager_wasm_bg.wasm');
    const instrumented = join(tmp, `${v.tag || 'graph'}.wasm`);
    const hits = join(tmp, `${v.tag || 'graph'}.json`);
    execFileSync(COLD_SPLIT, ['instrument', named, instrumented], { stdio: 'inherit' });
    console.log(`profiling the ${v.name} build`);
    execFileSync(
      process.execPath,
      ['--experimental-wasm-relaxed-simd', fileURLToPath(import.meta.url), '--workload', instrumented, hits],
      { stdio: 'inherit' },
    );
    const { functions, ops } = JSON.parse(readFileSync(hits, 'utf8'));
    const names = new Map(
      execFileSync(COLD_SPLIT, ['names', named], { encoding: 'utf8', maxBuffer: 64 << 20 })
        .trim()
        .split('\n')
        .map((l) => l.split('\t'))
        .map(([i, n]) => [Number(i), n]),
    );
    let unnamed = 0;
    for (const i of functions) {
      const n = names.get(i);
      if (n) hotNames[v.layers ? 'layers' : 'graph'].add(n);
      else unnamed++;
    }
    if (!v.layers) for (const op of ops) hotOps.add(op);
    console.log(`  ${functions.length} of ${names.size} functions ran${unnamed ? ` (${unnamed} without a name)` : ''}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const header = (what) =>
  `# The functions the profiled workload ran in ${what} (scripts/cold-profile.mjs): the primary\n` +
  '# module of the split build keeps them, the cold module gets the rest. Generated; do not edit.\n';
writeFileSync(HOT_LIST, header('the graph builds') + [...hotNames.graph].sort().join('\n') + '\n');
// The layers builds keep both lists: the graph workload's functions, and what the Keras models added.
const layersOnly = [...hotNames.layers].filter((n) => !hotNames.graph.has(n)).sort();
writeFileSync(HOT_LIST_LAYERS, header('the layers builds, beyond hot.txt') + layersOnly.join('\n') + '\n');
writeFileSync(
  join(root, 'js/hot-ops.js'),
  '// The ops the profiled workload ran (scripts/cold-profile.mjs); generated, do not edit.\n' +
    '// loadGraphModel fetches the cold module ahead for a model with an op outside this list.\n' +
    `export const HOT_OPS = new Set(${JSON.stringify([...hotOps].sort())});\n`,
);
console.log(
  `wrote ${HOT_LIST} (${hotNames.graph.size} names), ${HOT_LIST_LAYERS} (${layersOnly.length}) and js/hot-ops.js (${hotOps.size} ops)`,
);

// ---------------------------------------------------------------------------------- the workload
async function workload(wasmPath, outPath) {
  const glue = await import(pathToFileURL(join(root, 'dist/eager_wasm.js')).href);
  const exports = await glue.default({ module_or_path: readFileSync(wasmPath) });
  const api = await import(pathToFileURL(join(root, 'dist/index.js')).href);
  const { exerciseEager } = await import(pathToFileURL(join(root, 'bench/suite.mjs')).href);
  await api.init(); // binds the instance the glue already holds
  const { layers } = api.wasmFeatures();
  const { modelOps } = await import(pathToFileURL(join(root, 'bench/model-cases.mjs')).href);
  // The ops: those the kernel cache saw, and every op of the models run (control flow, Const, ...
  // run in the executor, not as kernels).
  const ops = new Set();
  const io = {
    bytes: async (p) => {
      const bytes = new Uint8Array(readFileSync(join(root, p)));
      if (p.endsWith('model.json')) for (const op of modelOps(JSON.parse(new TextDecoder().decode(bytes)))) ops.add(op);
      return bytes;
    },
  };
  const bench = await exerciseEager({ lib: api, io, log: console.log });
  console.log(`  ran ${bench.ran.length} benchmark cases`);
  for (const s of bench.skipped) console.warn(`  WARNING: skipped ${s}`);
  for (const op of bench.ops) ops.add(op);

  // The demo's default model, loaded and disposed through the cache policies it switches between.
  const modelDir = (d) => pathToFileURL(join(root, 'tests/fixtures/models', d, 'model.json')).href;
  const ctx = new api.EagerContext({ cache: { maxEntries: 64 } });
  for (const cache of [{ maxEntries: 8 }, { maxBytes: 1 << 20 }, { exclude: ['MatMul'] }, { maxEntries: 0 }]) {
    ctx.setCacheOptions(cache);
    const model = await ctx.loadGraphModel(modelDir('mlp'));
    const x = ctx.tensor(new Float32Array(2 * 784).fill(0.5), [2, 784]);
    const y = model.predict(x);
    await y.data();
    y.dispose();
    x.dispose();
    model.dispose();
    ctx.cacheStats();
    ctx.memory();
  }
  for (const op of Object.keys(ctx.cacheStats().byOp)) ops.add(op);
  ctx.clearCache();
  ctx.resetCache();
  if (layers) {
    // The demo's Keras models, loaded and run on their reference inputs.
    for (const d of ['teachable', 'lstm_text']) {
      const dir = join(root, 'tests/fixtures/layers', d);
      const model = await ctx.loadLayersModel(pathToFileURL(join(dir, 'model.json')).href);
      const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
      const x = Object.values(ref.inputs).map((v) => ctx.tensor(new Float32Array(v.data), v.shape));
      const y = model.predict(x.length === 1 ? x[0] : x);
      for (const t of [...x, ...(y.dispose ? [y] : Object.values(y))]) t.dispose();
      model.dispose();
    }
  }
  ctx.dispose();
  const functions = Object.keys(exports)
    .filter((k) => k.startsWith('__h') && exports[k].value === 1)
    .map((k) => Number(k.slice(3)));
  writeFileSync(outPath, JSON.stringify({ functions, ops: [...ops] }));
}
