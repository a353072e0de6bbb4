// Hostile values at the JS boundary: the cases of hostile-cases.mjs (also run in Chromium by
// scripts/chromium-check.mjs), a short fuzz loop over random attr/option/shape values, generated
// model files loaded from memory and over HTTP, memory pressure, and memory figures past 2 GiB.
// Longer runs: HOSTILE_FUZZ_MS (boundary loop), HOSTILE_FUZZ_CASES (model files),
// HOSTILE_MEMORY_ROUNDS (memory pressure), HOSTILE_FUZZ_SEED.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { freemem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { api, fixtures, root } from './helpers.mjs';
import { hostileCases, runHostileCases } from './hostile-cases.mjs';
import { fuzzBoundary, fuzzModels } from './hostile-fuzz.mjs';
import { tinyModelJson, tinyWeights } from './tiny-model.mjs';

const seed = Number(process.env.HOSTILE_FUZZ_SEED ?? 1);

for (const c of hostileCases(api)) {
  const pattern = new RegExp(`^${c.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  test(`hostile: ${c.name}`, { skip: c.skip || false }, async () => {
    const [r] = await runHostileCases(api, { only: pattern });
    assert.ok(r.ok, r.error);
  });
}

test('hostile: a fuzz loop over random attrs, options, shapes and values (a few seconds)', () => {
  const ms = Number(process.env.HOSTILE_FUZZ_MS ?? 3000);
  const r = fuzzBoundary(api, { ms, seed });
  assert.ok(r.calls > 100, `only ${r.calls} calls`);
  assert.deepEqual(r.failures, [], r.failures.join('\n'));
  console.log(`fuzz: ${r.calls} calls, ${r.errors} EagerErrors (codes ${JSON.stringify(r.codes)}), seed ${r.seed}`);
});

/** Small converted models with loops (v1 frames, v2 functions), conds and TensorArrays, and the tiny one. */
function fuzzModelSources() {
  const models = [{ name: 'tiny', modelJson: tinyModelJson, weights: tinyWeights }];
  for (const name of ['nested_loop', 'nested_loop_v2', 'dynamic_loop', 'dynamic_loop_v2', 'cond_v2', 'map_fn', 'map_fn_v2', 'tf1_tensorarray', 'while_tensorarray_v2', 'gru_v2']) {
    const dir = join(fixtures, name);
    models.push({ name, modelJson: readFileSync(join(dir, 'model.json'), 'utf8'), weights: new Uint8Array(readFileSync(join(dir, 'group1-shard1of1.bin'))) });
  }
  return models;
}

/** An HTTP server answering from `routes` (a Map of pathname -> bytes), noting every request. */
async function server(name, routes, lookup) {
  const requests = [];
  const s = createServer((req, res) => {
    requests.push(req.url);
    const path = new URL(req.url, 'http://x').pathname;
    const body = routes.get(path) ?? lookup(path);
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } else {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.byteLength }).end(body);
    }
  });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { name, requests, origin: `http://127.0.0.1:${s.address().port}`, close: () => new Promise((r) => s.close(r)) };
}

// Generated model.json files (functions, frames, shard paths, shapes, dtypes) loaded from memory
// and from a local HTTP server. The shards are also at the places a hostile path points to (a
// local directory, another origin), so that a load that read them would succeed and be caught.
test('hostile: generated model files from memory and over HTTP (seeded; HOSTILE_FUZZ_CASES for more)', async () => {
  const cases = Number(process.env.HOSTILE_FUZZ_CASES ?? 300);
  const dir = mkdtempSync(join(tmpdir(), 'eager-canary-'));
  const files = new Map(); // shard name -> bytes, for the case being run
  const byLastSegment = (path) => files.get(decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)));
  const routes = new Map();
  const model = await server('model', routes, byLastSegment);
  const canary = await server('canary', new Map(), byLastSegment);
  let n = 0;
  const serve = (text, shards) => {
    files.clear();
    routes.clear();
    for (const [k, v] of Object.entries(shards)) {
      files.set(k, v);
      writeFileSync(join(dir, k), v);
    }
    n++;
    routes.set(`/c${n}/sub/model.json`, new TextEncoder().encode(text));
    return `${model.origin}/c${n}/sub/model.json?q=${n}`;
  };
  try {
    const t0 = Date.now();
    const r = await fuzzModels(api, {
      models: fuzzModelSources(),
      cases,
      seed,
      http: { serve, canary: { dir, http: canary.origin } },
      log: (m) => console.log(m),
    });
    assert.deepEqual(r.failures, [], r.failures.join('\n'));
    assert.deepEqual(canary.requests, [], 'requests reached another origin');
    assert.ok(r.loaded > 0 && n > 0, `${r.loaded} loaded, ${n} over HTTP`);
    console.log(
      `model fuzz: ${r.cases} cases in ${Date.now() - t0} ms (${n} over HTTP, ${model.requests.length} requests), ` +
        `${r.loaded} loaded and ran, EagerErrors ${JSON.stringify(r.codes)}, seed ${seed}`,
    );
  } finally {
    await model.close();
    await canary.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// Memory pressure in a child process whose wasm memory is capped at 256 MiB (filling it is quick).
test('hostile: memory pressure, filled until ResourceExhausted, freed, everything works (seeded)', () => {
  const rounds = Number(process.env.HOSTILE_MEMORY_ROUNDS ?? 3);
  const entry = JSON.stringify(pathToFileURL(join(root, 'dist/index.js')).href);
  const fuzz = JSON.stringify(pathToFileURL(join(root, 'tests/js/hostile-fuzz.mjs')).href);
  const mlp = join(fixtures, 'mlp');
  const src = `
const api = await import(${entry});
const { fuzzMemoryPressure } = await import(${fuzz});
const { readFileSync } = await import('node:fs');
await api.init();
const model = { modelJson: readFileSync(${JSON.stringify(join(mlp, 'model.json'))}, 'utf8'), weights: new Uint8Array(readFileSync(${JSON.stringify(join(mlp, 'group1-shard1of1.bin'))})) };
const r = await fuzzMemoryPressure(api, { rounds: ${rounds}, seed: ${seed}, model, log: (m) => console.error(m) });
console.log(JSON.stringify(r));
`;
  const t0 = Date.now();
  const out = execFileSync(process.execPath, ['--wasm-max-mem-pages=4096', '--input-type=module', '-e', src], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const r = JSON.parse(out.trim().split('\n').pop());
  assert.deepEqual(r.failures, [], r.failures.join('\n'));
  console.log(`memory pressure: ${r.rounds} rounds in ${Date.now() - t0} ms, up to ${r.filled} tensors live, codes ${JSON.stringify(r.codes)}, seed ${seed}`);
});

// Three 0.8 GiB tensors (made by Fill inside wasm: no JS copies): heapBytes past 2 GiB (it read 0
// before the fix) and a peak that follows.
test('memory figures past 2 GiB', { skip: freemem() < 3.5 * 2 ** 30 && 'needs 3.5 GiB of free memory' }, () => {
  const ctx = new api.EagerContext();
  const n = Math.floor((0.8 * 2 ** 30) / 4);
  const base = ctx.memory().heapBytes;
  const dims = ctx.tensor(new Int32Array([n]));
  const zero = ctx.tensor(0);
  const ts = [];
  try {
    for (let i = 0; i < 3; i++) ts.push(ctx.execute('Fill', [dims, zero])[0]);
    const m = ctx.memory();
    assert.ok(m.heapBytes >= base + 3 * n * 4, `heapBytes ${m.heapBytes}`);
    assert.ok(m.heapPeakBytes >= m.heapBytes, `heapPeakBytes ${m.heapPeakBytes}`);
    assert.ok(m.tensorBytes >= 3 * n * 4, `tensorBytes ${m.tensorBytes}`);
    assert.ok(m.wasmMemoryBytes > 2 ** 31, `wasmMemoryBytes ${m.wasmMemoryBytes}`);
  } finally {
    for (const t of ts) t.dispose();
    dims.dispose();
    zero.dispose();
    ctx.dispose();
  }
});
