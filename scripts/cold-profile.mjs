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
// warning), the demo's default model through the cache policies, the README's image example and
// the everyday ctx.ops of pre- and post-processing (everydayWork), and, in the layers builds, the
// demo's Keras models, loaded and run. Run after `npm run build` (it needs pkg/ and dist/):
//   node scripts/cold-profile.mjs

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COLD_SPLIT, coldSplitBinary, HOT_LIST, HOT_LIST_LAYERS, SPLIT_VARIANTS } from './lib/cold-split.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// `--no-zoo`: the zoo's models left out of the workload (what only they run stays on demand).
const SKIP_ZOO = process.argv.includes('--no-zoo');
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
      ['--experimental-wasm-relaxed-simd', fileURLToPath(import.meta.url), '--workload', instrumented, hits, ...(SKIP_ZOO ? ['--no-zoo'] : [])],
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
// Without the model zoo (bench/models/zoo, made by tools/gen_zoo.py with TensorFlow) the workload
// skips its cases: then the names and ops the lists held are kept too, so that a machine without
// TensorFlow can add to the lists without dropping what the zoo's models run.
// `--fresh`: only what ran this time (the lists lose what the zoo's models alone need).
if (!existsSync(join(root, 'bench/models/zoo')) && !process.argv.includes('--fresh')) {
  const listed = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  for (const n of listed(HOT_LIST)) hotNames.graph.add(n);
  for (const n of listed(HOT_LIST_LAYERS)) hotNames.layers.add(n);
  const ops = readFileSync(join(root, 'js/hot-ops.js'), 'utf8').match(/new Set\((\[.*\])\)/);
  for (const op of ops ? JSON.parse(ops[1]) : []) hotOps.add(op);
  console.warn('no bench/models/zoo: the hot lists keep their previous names and ops besides what ran');
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
  await api.init({ threads: 1 }); // binds the instance the glue already holds
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
  const bench = await exerciseEager({ lib: api, io, log: console.log, only: (id) => !SKIP_ZOO || !id.startsWith('zoo_') });
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
  await everydayWork(api, modelDir('mobilenet'), ops);
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

/**
 * What the README's examples run (an image through fromPixels, resize, scaling, predict, top-k) and
 * the ctx.ops a page reaches for in pre- and post-processing, with TF.js's dtype rules (an int32
 * image divided by a number becomes float32): so that a page doing this never needs the on-demand
 * part. Each call is tried on its own: a helper missing from the build is skipped.
 */
async function everydayWork(api, modelUrl, ops) {
  const ctx = new api.EagerContext();
  const model = await ctx.loadGraphModel(modelUrl);
  const [, height, width] = model.inputs[0].shape;
  const image = { width: 64, height: 48, data: new Uint8Array(64 * 48 * 4).map((_, i) => (i * 7) % 256) };
  const readme = () =>
    ctx.tidy(() => {
      const input = ctx.fromPixels(image).resizeBilinear([height, width]).div(127.5).sub(1).expandDims(0);
      return model.predict(input).topk(3);
    });
  for (let i = 0; i < 2; i++) {
    const { values, indices } = readme();
    Array.from(indices.dataSync());
    await values.data();
    values.dispose();
    indices.dispose();
  }
  const o = ctx.ops;
  const calls = [
    () => ctx.fromPixels(image, 3, { dtype: 'uint8' }).cast('int32'),
    () => ctx.fromPixels(image, 4).toFloat().div(255),
    () => ctx.fromPixels(image).div(255).sub(0.5).mul(2),
    () => ctx.fromPixels(image).resizeNearestNeighbor([height, width]),
    () => ctx.fromPixels(image).transpose([2, 0, 1]),
    () => ctx.fromPixels(image).sum(2),
    () => ctx.fromPixels(image).mean([0, 1]),
    () => ctx.fromPixels(image).slice([0, 0, 0], [32, 32, 3]),
    () => ctx.fromPixels(image).reverse(1),
    () => ctx.fromPixels(image).pad([[1, 1], [1, 1], [0, 0]]),
    () => ctx.fromPixels(image).max(),
    () => ctx.fromPixels(image).min(),
    () => ctx.fromPixels(image).toFloat().mean(2),
    () => api.dispose(ctx.fromPixels(image).split(3, 2)),
    () => o.image.flipLeftRight(ctx.fromPixels(image).expandDims(0).toFloat()),
    () => o.image.cropAndResize(ctx.fromPixels(image).expandDims(0).toFloat(), [[0, 0, 1, 1]], [0], [8, 8]),
  ];
  const x = ctx.tensor(new Float32Array(24).map((_, i) => i / 7 - 1.5), [2, 3, 4]);
  const v = ctx.tensor(new Float32Array(12).map((_, i) => i - 6), [3, 4]);
  const n = ctx.tensor([1, 2, 3]);
  const ints = ctx.tensor(new Int32Array([3, 1, 2, 0]), [4]);
  const unary = ['abs', 'neg', 'exp', 'log', 'sqrt', 'rsqrt', 'square', 'relu', 'relu6', 'sigmoid', 'tanh', 'elu', 'floor', 'ceil', 'round', 'sign', 'softplus', 'reciprocal', 'isNaN'];
  for (const u of unary) calls.push(() => x[u]());
  for (const b of ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'pow', 'squaredDifference', 'greater', 'less', 'equal', 'notEqual', 'greaterEqual', 'lessEqual']) {
    calls.push(() => x[b](n.reshape([1, 3, 1])));
    calls.push(() => x[b](0.5));
  }
  calls.push(
    () => ints.add(1),
    () => ints.div(2),
    () => ints.toFloat().mul(ints.toFloat()),
    () => ints.mean(),
    () => ints.greater(1).sum(),
    () => o.matMul(v, v, false, true),
    () => v.matMul(ctx.tensor(new Float32Array(4).fill(1), [4, 1])),
    () => x.reshape([6, 4]).softmax(),
    () => x.logSoftmax(),
    () => x.argMax(-1),
    () => x.argMin(1),
    () => x.sum(-1, true),
    () => x.max(1),
    () => x.min(0),
    () => x.prod(2),
    () => x.topk(2),
    () => x.expandDims(1).squeeze([1]),
    () => o.concat([x, x], 1),
    () => o.stack([v, v]),
    () => api.dispose(o.unstack(v)),
    () => x.tile([1, 2, 1]),
    () => x.gather(ctx.tensor(new Int32Array([1, 0]), [2]), 1),
    () => x.clipByValue(-1, 1),
    () => o.where(x.greater(0), x, x.neg()),
    () => o.oneHot(ints, 4),
    () => x.cast('int32'),
    () => x.cast('bool'),
    () => x.flatten ? x.flatten() : x.reshape([-1]),
    () => o.range(0, 10, 1),
    () => o.zeros([2, 3]),
    () => o.ones([2, 3]),
    () => o.fill([2, 2], 3),
    () => x.arraySync(),
    () => x.toString(),
  );
  for (const c of calls) {
    try {
      ctx.tidy(c);
    } catch (e) {
      console.warn(`  everyday work: skipped a call (${e.message.slice(0, 80)})`);
    }
  }
  for (const op of Object.keys(ctx.cacheStats().byOp)) ops.add(op);
  model.dispose();
  ctx.dispose();
}
