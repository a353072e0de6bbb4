#!/usr/bin/env node
// `npm run bench:tfjs`: the same TF.js app code, `tf.loadGraphModel` + `model.predict`, on TF.js's
// wasm backend and on eager-wasm's TF.js backend ('eager-wasm'), in one TF.js engine, in headless
// Chromium and in Node. The engine's per-op work is the same for both: the ratio is the backends'.
//
//   node bench/tfjs-backend.mjs [--env node|chromium|all] [--rounds 3] [--only name,...]
//
// Models: the zoo (bench/models/zoo, made by tools/gen_zoo.py) where present, else the committed
// sample models. Each round loads each model on both backends (first backend alternating), warms
// up, then times `predict` + reading the outputs; a cell is the median over the round's samples and
// a row the median over rounds. One thread, SIMD on both sides.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium, runPage } from '../scripts/lib/browser.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { ZOO_MODELS } from './zoo.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const envs = arg('--env', 'all') === 'all' ? ['chromium', 'node'] : [arg('--env')];
const rounds = Number(arg('--rounds', 3));
const only = arg('--only', '')?.split(',').filter(Boolean);

// Graph models without control flow (the GRUs' while loops run on TF.js's executor, not a kernel).
const SAMPLES = ['mobilenet', 'zoo_blazeface', 'zoo_landmarks', 'cnn', 'mlp'];
const models = [
  ...ZOO_MODELS.filter((m) => !m.startsWith('gru')).map((m) => ({ name: m, dir: `bench/models/zoo/${m}` })),
  ...SAMPLES.map((m) => ({ name: m, dir: `tests/fixtures/models/${m}` })),
].filter((m) => existsSync(join(root, m.dir, 'model.json')) && (only.length === 0 || only.includes(m.name)));

const outDir = join(root, 'target', 'bench-tfjs-backend');
mkdirSync(outDir, { recursive: true });

// The page/process side: runs the rounds and returns per-model medians.
const RUNNER = `
import * as tf from '@tensorflow/tfjs-core';
import * as wasm from '@tensorflow/tfjs-backend-wasm';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import { io as tfio } from '@tensorflow/tfjs-core';
import { setBackendOptions } from '${join(root, 'dist', 'tfjs.js').replaceAll('\\\\', '/')}';

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };

async function timeOne(backend, m) {
  if (!(await tf.setBackend(backend))) throw new Error('tf.setBackend(' + backend + ') failed');
  const model = await loadGraphModel(tfio.fromMemory({ modelTopology: m.json.modelTopology, weightSpecs: m.json.weightsManifest.flatMap((g) => g.weights), weightData: m.weights.buffer }));
  const inputs = m.inputs.map((x) => tf.tensor(x.data, x.shape, x.dtype));
  const feed = inputs.length === 1 ? inputs[0] : Object.fromEntries(m.inputs.map((x, i) => [x.node, inputs[i]]));
  const once = () => { const y = model.predict(feed); const ys = Array.isArray(y) ? y : y instanceof tf.Tensor ? [y] : Object.values(y); for (const t of ys) t.dataSync(); const first = ys[0].dataSync().slice(0, 8); tf.dispose(ys); return first; };
  const first = once(); once();
  // about 1 s of samples, at least 5
  const t0 = performance.now(); once(); const est = performance.now() - t0;
  const n = Math.max(5, Math.min(50, Math.round(1000 / Math.max(est, 1))));
  const times = [];
  for (let i = 0; i < n; i++) { const s = performance.now(); once(); times.push(performance.now() - s); }
  tf.dispose(inputs);
  model.dispose();
  return { ms: median(times), first: Array.from(first) };
}

export async function runBench(models, rounds, wasmPrefix) {
  // One thread each.
  setBackendOptions({ init: { threads: 1 } });
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  wasm.setThreadsCount(1);
  wasm.setWasmPaths(wasmPrefix);
  const out = [];
  for (const m of models) {
    const per = { wasm: [], 'eager-wasm': [] };
    let firsts = {};
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? ['wasm', 'eager-wasm'] : ['eager-wasm', 'wasm'];
      for (const b of order) { const { ms, first } = await timeOne(b, m); per[b].push(ms); firsts[b] = first; }
    }
    const maxDiff = Math.max(...firsts.wasm.map((v, i) => Math.abs(v - firsts['eager-wasm'][i]) / Math.max(1, Math.abs(v))));
    out.push({ name: m.name, wasm: median(per.wasm), eager: median(per['eager-wasm']), maxDiff });
  }
  return out;
}
`;
writeFileSync(join(outDir, 'runner.mjs'), RUNNER);

/** A model's files and the reference inputs (signature order), as plain data for page or process. */
function readModel({ name, dir }) {
  const json = JSON.parse(readFileSync(join(root, dir, 'model.json'), 'utf8'));
  const shards = json.weightsManifest.flatMap((g) => g.paths).map((p) => readFileSync(join(root, dir, p)));
  const weights = new Uint8Array(Buffer.concat(shards));
  const ref = JSON.parse(readFileSync(join(root, dir, 'reference.json'), 'utf8'));
  const inputs = Object.keys(json.signature.inputs).map((key) => {
    const t = ref.inputs[key];
    const per = t.shape.slice(1).reduce((a, b) => a * b, 1);
    return { node: json.signature.inputs[key].name.replace(/:0$/, ''), dtype: t.dtype, shape: [1, ...t.shape.slice(1)], data: t.data.slice(0, per) };
  });
  return { name, json, weights, inputs };
}

async function bundle(platform) {
  const file = join(outDir, `runner-${platform}.mjs`);
  await build({
    entryPoints: [join(outDir, 'runner.mjs')],
    bundle: true,
    outfile: file,
    format: 'esm',
    platform,
    mainFields: ['module', 'main'],
    nodePaths: [join(root, 'node_modules')],
    // The CommonJS globals tfjs-backend-wasm's Emscripten loader uses in Node.
    banner:
      platform === 'node'
        ? { js: "import { createRequire as __cr } from 'node:module'; import { dirname as __dn } from 'node:path'; import { fileURLToPath as __fu } from 'node:url'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __dn(__filename);" }
        : {},
    define: platform === 'browser' ? { global: 'globalThis' } : {},
    external: platform === 'browser' ? ['fs', 'path', 'url', 'util', 'worker_threads', 'node-fetch', 'crypto', 'os', 'perf_hooks'] : [],
    logLevel: 'error',
  });
  for (const f of readdirSync(join(root, 'dist'))) if (f.endsWith('.wasm')) copyFileSync(join(root, 'dist', f), join(outDir, f));
  const tfw = join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist');
  for (const f of readdirSync(tfw)) if (f.endsWith('.wasm')) copyFileSync(join(tfw, f), join(outDir, f));
  return file;
}

const loaded = models.map(readModel);
const results = {};
for (const env of envs) {
  if (env === 'node') {
    const file = await bundle('node');
    const { runBench } = await import(pathToFileURL(file).href);
    results.node = await runBench(loaded, rounds, outDir + '/');
  } else {
    await bundle('browser');
    for (const m of loaded) writeFileSync(join(outDir, `${m.name}.weights.bin`), m.weights);
    const meta = loaded.map((m) => ({ ...m, weights: undefined }));
    writeFileSync(join(outDir, 'models.json'), JSON.stringify(meta));
    writeFileSync(
      join(outDir, 'index.html'),
      `<!doctype html><meta charset="utf-8"><script type="module">
import { runBench } from './runner-browser.mjs';
const meta = await (await fetch('./models.json')).json();
for (const m of meta) m.weights = new Uint8Array(await (await fetch('./' + m.name + '.weights.bin')).arrayBuffer());
runBench(meta, ${rounds}, location.href.replace(/[^/]*$/, '')).then((r) => { window.__result = r; }, (e) => { window.__error = String(e && e.stack || e); });
</script>`,
    );
    const server = await startServer(outDir);
    const browser = await launchChromium();
    try {
      results.chromium = await runPage(browser.context, `${server.origin}/index.html`, { timeoutMs: 60 * 60 * 1000, echoConsole: false });
    } finally {
      await browser.close();
      await server.close();
    }
  }
}

const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
console.log(`tf.loadGraphModel + predict: TF.js wasm backend vs eager-wasm's TF.js backend (1 thread, SIMD; medians of ${rounds} rounds; load ${os.loadavg()[0].toFixed(1)})`);
for (const [env, rows] of Object.entries(results)) {
  console.log(`\n${env}:`);
  console.log(`  ${'model'.padEnd(22)} ${'tfjs-wasm'.padStart(10)} ${'eager-wasm'.padStart(11)} ${'speedup'.padStart(8)}  max rel diff`);
  for (const r of rows) {
    console.log(`  ${r.name.padEnd(22)} ${r.wasm.toFixed(2).padStart(8)}ms ${r.eager.toFixed(2).padStart(9)}ms ${(r.wasm / r.eager).toFixed(2).padStart(7)}x  ${r.maxDiff.toExponential(1)}`);
  }
  console.log(`  geomean speedup: ${geomean(rows.map((r) => r.wasm / r.eager)).toFixed(2)}x`);
}
writeFileSync(join(outDir, 'results.json'), JSON.stringify({ date: new Date().toISOString(), load: os.loadavg(), results }, null, 1));
process.exit(0);
