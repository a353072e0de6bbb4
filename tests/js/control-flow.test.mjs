import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, closeTo, loadFixture, rejectsCode, throwsCode } from './helpers.mjs';

const { EagerContext, Tensor } = api;

function feeds(ctx, reference) {
  const out = {};
  for (const [k, v] of Object.entries(reference.inputs)) {
    const data = v.dtype === 'int32' ? new Int32Array(v.data) : new Float32Array(v.data);
    out[k] = ctx.tensor(data, v.shape, v.dtype);
  }
  return out;
}

for (const name of ['gru', 'gru_v2', 'zoo_gru', 'zoo_gru_v2', 'nested_loop', 'nested_loop_v2', 'dynamic_loop', 'dynamic_loop_v2']) {
  test(`${name}: executeAsync matches TF and leaves no tensor or resource behind`, async () => {
    const ctx = new EagerContext();
    const { modelJson, shards, reference } = loadFixture(name);
    const x = feeds(ctx, reference);
    const before = ctx.memory();
    const model = await ctx.loadGraphModel({ modelJson, weights: shards });
    const keys = model.outputs.map((o) => o.name);
    const out = await model.executeAsync(x, keys);
    assert.ok(Array.isArray(out) && out.length === keys.length);
    out.forEach((t, i) => {
      const want = reference.outputs[keys[i]];
      assert.ok(t instanceof Tensor);
      assert.deepEqual(t.shape, want.shape);
      closeTo(t.dataSync(), want.data);
      t.dispose();
    });
    model.dispose();
    const after = ctx.memory();
    assert.equal(after.numTensors, before.numTensors);
    assert.equal(after.numResources, before.numResources);
    ctx.dispose();
  });
}

test('execute returns intermediate nodes by name; bad names and options are EagerErrors', async () => {
  const ctx = new EagerContext();
  const { modelJson, shards, reference } = loadFixture('cond');
  const { x } = feeds(ctx, reference);
  const model = await ctx.loadGraphModel({ modelJson, weights: shards });
  const sum = model.execute({ x }, 'PartitionedCall/Sum');
  const total = x.dataSync().reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum.dataSync()[0] - total) < 1e-4);
  const [branch, y] = model.execute(x, ['PartitionedCall/cond/output/_8:1', 'y']);
  assert.deepEqual(Array.from(branch.dataSync()), [total > 0 ? 0 : 1]);
  closeTo(y.dataSync(), reference.outputs.y.data);
  const only = model.execute(x);
  assert.ok(only instanceof Tensor);
  throwsCode(() => model.execute(x, 'nope'), 'NotFound');
  throwsCode(() => model.execute(x, [3]), 'InvalidArgument');
  await rejectsCode(model.executeAsync(x, 'nope'), 'NotFound');
  for (const t of [sum, branch, y, only, x]) t.dispose();
  model.dispose();
  throwsCode(() => new EagerContext({ maxLoopIterations: 0 }), 'InvalidArgument', /maxLoopIterations/);
  throwsCode(() => new EagerContext({ maxLoopIterations: 'many' }), 'InvalidArgument', /maxLoopIterations/);
  new EagerContext({ maxLoopIterations: 10 }).dispose();
  ctx.dispose();
});
