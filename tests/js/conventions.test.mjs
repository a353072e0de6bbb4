// The API conventions a TF.js user brings: dispose(tensors) and keep() as tf.dispose / tf.keep,
// ctx.dispose() refusing an argument (it would dispose the whole context), execute() on layers
// models, execute() refusing output names that are not strings, and a pointer to the right loader
// when a model.json is of the other format. Runs on the layers build (LayersModel needs it).
import './use-layers-build.mjs';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { api, closeTo, fixtures, loadFixture, rejectsCode, root, throwsCode } from './helpers.mjs';

const { EagerContext, dispose, keep } = api;

test('dispose(container) disposes every tensor in it, at any depth; twice is harmless', () => {
  const ctx = new EagerContext();
  const base = ctx.memory().numTensors;
  const t = () => ctx.tensor([1, 2, 3]);
  const a = t();
  const nested = { a, list: [t(), [t()]], map: new Map([['k', t()]]), set: new Set([t()]), n: 5, s: 'x', nil: null };
  assert.equal(ctx.memory().numTensors, base + 5);
  dispose(nested);
  assert.equal(ctx.memory().numTensors, base);
  assert.equal(a.isDisposed, true);
  dispose(nested);
  dispose(a);
  dispose(null);
  dispose(undefined);
  const b = t();
  dispose(b);
  assert.equal(ctx.memory().numTensors, base);
  // The context is untouched.
  assert.equal(ctx.isDisposed, false);
  ctx.dispose();
});

test('ctx.dispose(tensors) throws InvalidArgument instead of disposing the whole context', () => {
  const ctx = new EagerContext();
  const a = ctx.tensor([1, 2]);
  throwsCode(() => ctx.dispose([a]), 'InvalidArgument', /takes no argument.*dispose\(tensors\)/);
  throwsCode(() => ctx.dispose(a), 'InvalidArgument');
  assert.equal(ctx.isDisposed, false);
  assert.deepEqual(Array.from(a.dataSync()), [1, 2]);
  ctx.dispose();
  assert.equal(ctx.isDisposed, true);
});

test('keep() saves a tensor from every enclosing tidy; the rest is disposed', () => {
  const ctx = new EagerContext();
  const base = ctx.memory().numTensors;
  let kept;
  const out = ctx.tidy(() => {
    ctx.tensor([0]);
    ctx.tidy(() => {
      kept = keep(ctx.tensor([7, 8]));
      ctx.tensor([9]);
    });
    return ctx.tensor([1]);
  });
  assert.equal(ctx.memory().numTensors, base + 2);
  assert.deepEqual(Array.from(kept.dataSync()), [7, 8]);
  // keep() outside any tidy does nothing, and a kept tensor disposed by hand stays disposed.
  const loose = keep(ctx.tensor([3]));
  ctx.tidy(() => dispose(keep(ctx.tensor([4]))));
  assert.equal(ctx.memory().numTensors, base + 3);
  dispose([out, kept, loose]);
  assert.equal(ctx.memory().numTensors, base);
  throwsCode(() => keep([1]), 'InvalidArgument');
  ctx.dispose();
});

test('model.execute() refuses output names that are not strings (no silent empty result)', async () => {
  const ctx = new EagerContext();
  const { modelJson, shards } = loadFixture('mlp');
  const model = await ctx.loadGraphModel({ modelJson, weights: shards[0] });
  const x = ctx.tensor(new Float32Array(784), [1, 784]);
  const base = ctx.memory().numTensors;
  for (const bad of [5, Symbol('s'), {}, true, [1], ['ok', 2]]) {
    throwsCode(() => model.execute(x, bad), 'InvalidArgument', /outputs/);
  }
  assert.equal(ctx.memory().numTensors, base);
  await rejectsCode(model.executeAsync(x, 5), 'InvalidArgument');
  assert.deepEqual(model.execute(x, []), []);
  ctx.dispose();
});

function layersFixture(name) {
  const dir = join(root, 'tests/fixtures/layers', name);
  const modelJson = readFileSync(join(dir, 'model.json'), 'utf8');
  const weights = JSON.parse(modelJson).weightsManifest.flatMap((g) => g.paths).map((p) => readFileSync(join(dir, p)));
  return { modelJson, weights, reference: JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) };
}

test('execute()/executeAsync() on a layers model: its outputs by name, in the order asked', async () => {
  const ctx = new EagerContext();
  const { modelJson, weights, reference } = layersFixture('merge');
  const model = await ctx.loadLayersModel({ modelJson, weights });
  const feeds = Object.fromEntries(Object.entries(reference.inputs).map(([k, v]) => [k, ctx.tensor(new Float32Array(v.data), v.shape)]));
  const base = ctx.memory().numTensors;
  const names = model.outputs.map((o) => o.name);
  assert.deepEqual(names, Object.keys(reference.outputs));
  const [y3, y1] = model.execute(feeds, [names[2], names[0]]);
  closeTo(y3.dataSync(), reference.outputs.y3.data);
  closeTo(y1.dataSync(), reference.outputs.y1.data);
  // The output not asked for was disposed.
  assert.equal(ctx.memory().numTensors, base + 2);
  const y2 = await model.executeAsync(feeds, `${names[1]}:0`);
  closeTo(y2.dataSync(), reference.outputs.y2.data);
  const all = model.execute(feeds);
  assert.equal(all.length, 3);
  dispose([y1, y2, y3, all]);
  assert.equal(ctx.memory().numTensors, base);
  throwsCode(() => model.execute(feeds, 'dense_inner'), 'NotFound', /not an output of this layers model/);
  assert.equal(ctx.memory().numTensors, base);
  ctx.dispose();
});

test('a model.json of the other format points to the right loader', async () => {
  const ctx = new EagerContext();
  const layers = layersFixture('seq_mlp');
  await rejectsCode(ctx.loadGraphModel({ modelJson: layers.modelJson, weights: layers.weights }), 'InvalidArgument', /loadLayersModel\(\).*init\(\{ layers: true \}\)/);
  await rejectsCode(ctx.loadGraphModel(join(root, 'tests/fixtures/layers/seq_mlp/model.json')), 'InvalidArgument', /loadLayersModel/);
  const { modelJson, shards } = loadFixture('mlp');
  await rejectsCode(ctx.loadLayersModel({ modelJson, weights: shards[0] }), 'InvalidArgument', /graph model.*loadGraphModel\(\)/);
  assert.ok(fixtures);
  ctx.dispose();
});
