import './use-layers-build.mjs';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { api, closeTo, rejectsCode, root, throwsCode } from './helpers.mjs';

const { EagerContext, GraphModel, LayersModel } = api;
const layersDir = join(root, 'tests/fixtures/layers');
const names = readdirSync(layersDir).sort();

function fixture(name) {
  const dir = join(layersDir, name);
  const modelJson = readFileSync(join(dir, 'model.json'), 'utf8');
  const shards = JSON.parse(modelJson).weightsManifest.flatMap((g) => g.paths).map((p) => readFileSync(join(dir, p)));
  const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
  return { modelJson, shards, reference };
}

const ARRAYS = { float32: Float32Array, int32: Int32Array };
function feeds(ctx, reference) {
  const out = {};
  for (const [name, x] of Object.entries(reference.inputs)) {
    out[name] = ctx.tensor(new ARRAYS[x.dtype](x.data), x.shape, x.dtype);
  }
  return out;
}

let server;
let base;
before(async () => {
  server = createServer((req, res) => {
    try {
      const body = readFileSync(join(layersDir, new URL(req.url, 'http://x').pathname));
      res.writeHead(200, { 'content-length': body.length }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

test('every layers fixture matches Keras; dispose returns the heap to the byte', async () => {
  assert.ok(names.length >= 10, names.join(', '));
  const ctx = new EagerContext();
  for (const name of names) {
    const { modelJson, shards, reference } = fixture(name);
    const load = () => ctx.loadLayersModel({ modelJson, weights: shards });
    const x = feeds(ctx, reference);
    // The first load and run of a model fill the kernel cache (kept, by design).
    const warm = await load();
    const w = warm.predict(x);
    for (const t of w.shape ? [w] : Object.values(w)) t.dispose();
    warm.dispose();
    const heap0 = ctx.memory().heapBytes;
    const model = await load();
    assert.ok(model instanceof LayersModel && model instanceof GraphModel, name);
    assert.deepEqual(
      model.inputs.map((i) => i.name),
      Object.keys(reference.inputs),
      name,
    );
    const y = model.predict(x);
    const outs = model.outputs.length === 1 ? { [model.outputs[0].name]: y } : y;
    for (const [k, want] of Object.entries(reference.outputs)) {
      assert.deepEqual(outs[k].shape, want.shape, `${name}/${k}`);
      closeTo(outs[k].dataSync(), want.data);
      outs[k].dispose();
    }
    model.dispose();
    assert.equal(ctx.memory().numResources, 0, name);
    assert.equal(ctx.memory().heapBytes, heap0, `${name}: heap back to the byte`);
    for (const t of Object.values(x)) t.dispose();
  }
  ctx.dispose();
});

test('loadLayersModel by URL fetches the shards and reports progress to 1', async () => {
  const ctx = new EagerContext();
  const seen = [];
  const model = await ctx.loadLayersModel(`${base}/seq_mlp/model.json`, { onProgress: (f) => seen.push(f) });
  assert.equal(seen.at(-1), 1);
  assert.ok(seen.every((f, i) => i === 0 || f >= seen[i - 1]));
  const { reference } = fixture('seq_mlp');
  const y = model.predict(Object.values(feeds(ctx, reference))[0]);
  closeTo(y.dataSync(), Object.values(reference.outputs)[0].data);
  await rejectsCode(ctx.loadLayersModel(`${base}/nope/model.json`), 'NotFound');
  ctx.dispose();
  assert.ok(model.isDisposed);
});

test('unique names grow the cache by one entry per weight per load; anonymous stay flat', async () => {
  const { modelJson, shards } = fixture('teachable');
  const n = JSON.parse(modelJson).weightsManifest[0].weights.length;
  for (const [resourceNames, growth] of [['unique', n], ['anonymous', 0]]) {
    const ctx = new EagerContext({ resourceNames });
    const entries = [];
    for (let i = 0; i < 5; i++) {
      (await ctx.loadLayersModel({ modelJson: JSON.parse(modelJson), weights: shards })).dispose();
      entries.push(ctx.memory().cacheEntries);
    }
    for (let i = 1; i < entries.length; i++) assert.equal(entries[i], entries[i - 1] + growth, `${resourceNames}: ${entries}`);
    ctx.dispose();
  }
});

test('bad layers models are EagerErrors at load, nothing leaked', async () => {
  const ctx = new EagerContext();
  const { modelJson, shards } = fixture('seq_mlp');
  (await ctx.loadLayersModel({ modelJson, weights: shards })).dispose();
  const m0 = ctx.memory();
  const doc = JSON.parse(modelJson);
  const unknown = structuredClone(doc);
  unknown.modelTopology.model_config.config.layers[1].class_name = 'FancyLayer';
  await rejectsCode(ctx.loadLayersModel({ modelJson: unknown, weights: shards }), 'Unimplemented', /FancyLayer/);
  const bad = structuredClone(doc);
  bad.modelTopology.model_config.config.layers[1].config.units = 3;
  await rejectsCode(ctx.loadLayersModel({ modelJson: bad, weights: shards }), 'InvalidArgument', /dense\/kernel/);
  // The wrong loader for each format says which one to use.
  await rejectsCode(ctx.loadGraphModel({ modelJson, weights: shards }), 'InvalidArgument');
  const graph = readFileSync(join(root, 'tests/fixtures/models/mlp/model.json'), 'utf8');
  await rejectsCode(ctx.loadLayersModel({ modelJson: graph, weights: [] }), 'InvalidArgument', /loadGraphModel/);
  await rejectsCode(ctx.loadLayersModel(42), 'InvalidArgument', /loadLayersModel/);
  const m1 = ctx.memory();
  assert.equal(m1.numResources, 0);
  assert.equal(m1.heapBytes, m0.heapBytes);
  ctx.dispose();
});

test('profile() on a layers model times each layer call; the second run hits every kernel; nothing leaked', async () => {
  const ctx = new EagerContext();
  const { modelJson, shards, reference } = fixture('teachable');
  const model = await ctx.loadLayersModel({ modelJson, weights: shards });
  const x = feeds(ctx, reference);
  const first = model.profile(x);
  const second = model.profile(x);
  const layerNames = new Set(JSON.stringify(JSON.parse(modelJson).modelTopology).match(/"name":"[^"]*"/g).map((m) => m.slice(8, -1)));
  assert.ok(first.nodes.length > 0);
  for (const n of first.nodes) {
    assert.ok(layerNames.has(n.name), `${n.name} is no layer`);
    assert.ok(Number.isFinite(n.ms) && n.ms >= 0);
  }
  assert.ok(first.nodes.some((n) => n.cache === 'miss'));
  assert.ok(second.nodes.every((n) => n.cache !== 'miss'));
  assert.equal(first.byOp.reduce((s, o) => s + o.count, 0), first.nodes.length);
  const before = ctx.memory();
  model.profile(x);
  const after = ctx.memory();
  assert.equal(after.heapBytes, before.heapBytes);
  assert.equal(after.numTensors, before.numTensors);
  for (const t of Object.values(x)) t.dispose();
  model.dispose();
  throwsCode(() => model.profile(x), 'FailedPrecondition');
  assert.equal(ctx.memory().numTensors, 0);
  ctx.dispose();
});
