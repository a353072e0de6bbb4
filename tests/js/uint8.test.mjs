// uint8 tensors through the JS API (a Uint8Array or Uint8ClampedArray with dtype 'uint8'; without
// it they make int32, as in TF.js) and a model fed uint8 images, compared with TF's outputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, closeTo, loadFixture } from './helpers.mjs';

const { EagerContext } = api;

test('uint8 tensors keep their bytes when asked for; byte arrays alone make int32 as in TF.js', () => {
  const ctx = new EagerContext();
  const u = ctx.tensor(new Uint8Array([0, 7, 255]), [3], 'uint8');
  assert.equal(u.dtype, 'uint8');
  assert.deepEqual(u.dataSync(), new Uint8Array([0, 7, 255]));
  const c = ctx.tensor(new Uint8ClampedArray([1, 200]), [2], 'uint8');
  assert.equal(c.dtype, 'uint8');
  assert.deepEqual(c.dataSync(), new Uint8Array([1, 200]));
  const plain = ctx.tensor(new Uint8ClampedArray([1, 200]));
  assert.equal(plain.dtype, 'int32');
  assert.deepEqual(plain.dataSync(), new Int32Array([1, 200]));
  const into = new Uint8Array(3);
  u.readInto(into);
  assert.deepEqual(into, new Uint8Array([0, 7, 255]));
  const [f] = ctx.execute('Cast', [u], { DstT: 'float32' });
  assert.deepEqual(f.dataSync(), new Float32Array([0, 7, 255]));
  const [back] = ctx.execute('Cast', [ctx.tensor(new Int32Array([256, -1, 3]))], { DstT: 'uint8' });
  assert.equal(back.dtype, 'uint8');
  assert.deepEqual(back.dataSync(), new Uint8Array([0, 255, 3]));
  assert.equal(ctx.tensor(new Uint8Array([1, 0])).dtype, 'int32');
  assert.equal(ctx.tensor(new Uint8Array([1, 0]), [2], 'bool').dtype, 'bool');
  ctx.dispose();
});

test('a model fed uint8 images matches TF and releases its variables and tensors', async () => {
  const ctx = new EagerContext();
  const { modelJson, shards, reference } = loadFixture('uint8_image');
  const model = await ctx.loadGraphModel({ modelJson: JSON.parse(modelJson), weights: shards });
  const x = reference.inputs.x;
  const input = ctx.tensor(Uint8Array.from(x.data), x.shape, 'uint8');
  const out = model.predict(input);
  closeTo(out.y.dataSync(), reference.outputs.y.data);
  assert.deepEqual(Array.from(out.small.dataSync()), reference.outputs.small.data);
  for (const t of [input, out.y, out.small]) t.dispose();
  model.dispose();
  assert.equal(ctx.memory().numResources, 0);
  assert.equal(ctx.memory().numTensors, 0);
  ctx.dispose();
});
