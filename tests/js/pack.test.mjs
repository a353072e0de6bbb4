// Weights packed at load (src/model/pack.rs): memory() reports them in a row of their own, they go
// with the model, and `packWeights: false` turns them off without changing a bit of the outputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, fixtureMissingOps, loadFixture, settleGarbage, throwsCode } from './helpers.mjs';

const { EagerContext } = api;
const name = 'zoo_blazeface';
const skip = fixtureMissingOps(name);

/**
 * Loads the fixture, predicts its reference input: the outputs' values, memory() after the load and
 * after the predict (packing happens on a weight's first use).
 */
async function cycle(ctx) {
  const { modelJson, shards, reference } = loadFixture(name);
  const model = await ctx.loadGraphModel({ modelJson, weights: shards });
  const atLoad = ctx.memory();
  const [key] = Object.keys(reference.inputs);
  const x = ctx.tensor(Float32Array.from(reference.inputs[key].data), reference.inputs[key].shape);
  const outs = model.predict(x);
  const loaded = ctx.memory();
  const values = Object.values(outs).map((t) => {
    const v = t.dataSync();
    t.dispose();
    return v;
  });
  x.dispose();
  model.dispose();
  return { values, atLoad, loaded };
}

test('memory() counts packed weights in their own row; dispose returns the heap to the byte', { skip: skip ?? false }, async () => {
  await settleGarbage();
  const ctx = new EagerContext();
  const first = await cycle(ctx); // kernels cached: the second cycle's heap compares exactly
  // 18 convolutions, each with its own filter, packed by the first predict, except the first: on
  // 3 channels, it reads its filter as it is (conv_thin).
  assert.equal(first.atLoad.numPacked, 0);
  assert.equal(first.loaded.numPacked, 17);
  assert.ok(first.loaded.packedBytes > 0);
  const before = ctx.memory();
  assert.equal(before.numPacked, 0);
  assert.equal(before.packedBytes, 0);
  const { loaded } = await cycle(ctx);
  assert.equal(loaded.numPacked, 17);
  assert.equal(loaded.packedBytes, first.loaded.packedBytes);
  assert.ok(loaded.heapBytes >= before.heapBytes + loaded.resourceBytes + loaded.packedBytes);
  const after = ctx.memory();
  assert.equal(after.numPacked, 0);
  assert.equal(after.packedBytes, 0);
  assert.equal(after.heapBytes, before.heapBytes, 'heap in use back to the byte');

  const plainCtx = new EagerContext({ packWeights: false });
  const plain = await cycle(plainCtx);
  assert.equal(plain.loaded.numPacked, 0);
  assert.equal(plain.loaded.packedBytes, 0);
  assert.equal(plain.values.length, first.values.length);
  plain.values.forEach((v, i) => assert.deepEqual(v, first.values[i], `output ${i}: packed and unpacked bits`));
  plainCtx.dispose();
  ctx.dispose();
});

test('packWeights must be a boolean', () => {
  throwsCode(() => new EagerContext({ packWeights: 'yes' }), 'InvalidArgument', /packWeights/);
});
