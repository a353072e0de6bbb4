import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, closeTo, fixtureMissingOps, loadFixture, throwsCode } from './helpers.mjs';

const { EagerContext } = api;
const FOLDED = new Set(['Pad', 'Const', 'BiasAdd', 'Add', 'AddV2', 'Conv2D', '_FusedConv2D', 'DepthwiseConv2dNative', 'FusedDepthwiseConv2dNative', 'MatMul', '_FusedMatMul']);

function input(ctx, reference) {
  const [name, x] = Object.entries(reference.inputs)[0];
  return { [name]: ctx.tensor(new Float32Array(x.data), x.shape) };
}

for (const name of ['zoo_blazeface', 'mobilenet']) {
  test(`${name}: profile times every node, cache misses then hits, shapes as predict's, nothing leaked`, { skip: fixtureMissingOps(name) ?? false }, async () => {
    const ctx = new EagerContext();
    const { modelJson, shards, reference } = loadFixture(name);
    const graphNodes = JSON.parse(modelJson).modelTopology.node;
    const model = await ctx.loadGraphModel({ modelJson, weights: shards });
    const feeds = input(ctx, reference);

    const first = model.profile(feeds);
    const second = model.profile(feeds);
    // Every node of the graph ran once, in both, but those the load-time fusion pass folded away:
    // a zero Pad (into the conv after it), a conv that took in its bias add or activation (the
    // fused node keeps the last name) and their constants.
    const ran = new Set(first.nodes.map((n) => n.name));
    assert.equal(ran.size, first.nodes.length, 'a node profiled twice');
    for (const n of graphNodes) assert.ok(ran.has(n.name) || FOLDED.has(n.op), `${n.name} (${n.op}) did not run`);
    const names = new Set(graphNodes.map((n) => n.name));
    for (const n of ran) assert.ok(names.has(n), `${n} is not a graph node`);
    assert.deepEqual(second.nodes.map((n) => n.name), first.nodes.map((n) => n.name));
    for (const n of first.nodes) {
      assert.equal(typeof n.op, 'string');
      assert.ok(Number.isFinite(n.ms) && n.ms >= 0, `${n.name}: ${n.ms}`);
      for (const o of n.outputs) {
        const size = { float32: 4, int32: 4, int64: 8, bool: 1, uint8: 1 }[o.dtype];
        assert.equal(o.bytes, o.shape.reduce((a, b) => a * b, 1) * size, n.name);
      }
    }
    // A fresh context makes each kernel on first use; the second call finds them all cached.
    const count = (p, c) => p.nodes.filter((n) => n.cache === c).length;
    assert.ok(count(first, 'miss') > 0);
    assert.equal(count(second, 'miss'), 0);
    assert.equal(count(second, 'hit'), count(first, 'hit') + count(first, 'miss'));
    assert.ok(first.nodes.filter((n) => n.op === 'Placeholder').every((n) => n.cache === null));
    // Summary by op type: every node once, shares of the total, longest first.
    for (const p of [first, second]) {
      assert.equal(p.byOp.reduce((s, o) => s + o.count, 0), p.nodes.length);
      assert.ok(Math.abs(p.byOp.reduce((s, o) => s + o.share, 0) - 1) < 1e-9);
      assert.ok(p.byOp.every((o, i) => i === 0 || p.byOp[i - 1].ms >= o.ms));
      assert.ok(p.totalMs > 0 && p.totalMs <= p.wallMs + 1e-9);
    }

    // The output nodes made what predict returns (shape and dtype).
    const y = model.predict(feeds);
    const outs = y.shape ? [y] : Object.values(y);
    model.outputs.forEach((info, i) => {
      const [node, k] = info.tensorName.split(':');
      const n = first.nodes.find((m) => m.name === node);
      assert.deepEqual(n.outputs[Number(k)].shape, outs[i].shape, node);
      assert.equal(n.outputs[Number(k)].dtype, outs[i].dtype);
      const want = reference.outputs[info.name];
      closeTo(outs[i].dataSync(), want.data, 1e-5, 1e-4);
    });
    for (const t of outs) t.dispose();

    // Each op node's inputs (fetched by the names it reports, of the shapes it reports) and attrs
    // run the same op alone through ctx.execute, into outputs of the shapes it made (what
    // bench/profile.mjs's model-vs-alone check does).
    let alone = 0;
    for (const n of first.nodes) {
      if (['Placeholder', 'Const', 'ReadVariableOp'].includes(n.op)) {
        assert.deepEqual(n.inputs, [], n.name);
        continue;
      }
      assert.ok(n.inputs.length > 0 && n.attrs && typeof n.attrs === 'object', n.name);
      const args = [].concat(model.execute(feeds, n.inputs.map((i) => i.from)));
      n.inputs.forEach((inp, k) => {
        assert.deepEqual(args[k].shape, inp.shape, n.name);
        assert.equal(args[k].dtype, inp.dtype, n.name);
      });
      const made = ctx.execute(n.op, args, n.attrs);
      assert.deepEqual(made.map((t) => t.shape), n.outputs.map((o) => o.shape), n.name);
      const fed = new Set(Object.values(feeds));
      for (const t of [...made, ...args]) if (!fed.has(t)) t.dispose();
      alone++;
    }
    assert.ok(alone > 0);

    // Kernels cached and keys kept by now: a profile leaves the heap and tensors as they were.
    const before = ctx.memory();
    model.profile(feeds);
    const after = ctx.memory();
    assert.equal(after.heapBytes, before.heapBytes);
    assert.equal(after.numTensors, before.numTensors);

    model.dispose();
    throwsCode(() => model.profile(feeds), 'FailedPrecondition', /disposed/);
    for (const t of Object.values(feeds)) t.dispose();
    const end = ctx.memory();
    assert.equal(end.numTensors, 0);
    assert.equal(end.numResources, 0);
    ctx.dispose();
  });
}

test('profile: bad feeds are typed errors (layers models: layers.test.mjs)', async () => {
  const ctx = new EagerContext();
  const { modelJson, shards, reference } = loadFixture('mlp');
  const model = await ctx.loadGraphModel({ modelJson, weights: shards });
  throwsCode(() => model.profile({ nope: ctx.tensor(new Float32Array(1), [1]) }), 'InvalidArgument');
  throwsCode(() => model.profile(42), 'InvalidArgument');
  const feeds = input(ctx, reference);
  assert.ok(model.profile(feeds).nodes.length > 0);
  model.dispose();
  for (const t of Object.values(feeds)) t.dispose();
  ctx.dispose();
});

for (const name of ['gru', 'gru_v2']) {
  test(`${name}: profile of a while loop lists each node once with its runs; nothing leaked`, async () => {
    const ctx = new EagerContext();
    const { modelJson, shards, reference } = loadFixture(name);
    const model = await ctx.loadGraphModel({ modelJson, weights: shards });
    const feeds = input(ctx, reference);
    const first = model.profile(feeds);
    const second = model.profile(feeds);
    assert.equal(new Set(first.nodes.map((n) => n.name)).size, first.nodes.length, 'a node listed twice');
    // 5 time steps: the condition is checked 6 times, the body runs 5, the rest once.
    const runs = (p, op) => p.nodes.filter((n) => n.op === op).map((n) => n.count);
    assert.deepEqual(runs(first, 'LoopCond'), [6]);
    assert.deepEqual(runs(first, 'Tanh'), [5]);
    assert.ok(runs(first, 'NextIteration').every((c) => c === 5));
    assert.ok(runs(first, 'Exit').length > 0 && runs(first, 'Exit').every((c) => c === 1));
    assert.deepEqual(runs(first, 'Placeholder'), [1]);
    const matmul = first.nodes.find((n) => n.op === 'MatMul');
    assert.deepEqual([matmul.count, matmul.outputs[0].shape], [5, [2, 24]]);
    // By op: runs, not nodes.
    const tanh = first.byOp.find((o) => o.op === 'Tanh');
    assert.equal(tanh.count, 5);
    assert.equal(first.byOp.reduce((s, o) => s + o.count, 0), first.nodes.reduce((s, n) => s + n.count, 0));
    assert.ok(first.nodes.filter((n) => ['Enter', 'Merge', 'Switch', 'NextIteration', 'Exit'].includes(n.op)).every((n) => n.cache === null));
    assert.equal(first.nodes.find((n) => n.op === 'Tanh').cache, 'miss');
    assert.equal(second.nodes.filter((n) => n.cache === 'miss').length, 0);
    assert.ok(first.totalMs > 0 && first.totalMs <= first.wallMs + 1e-9);
    // The output node made what predict returns, which matches TF.
    const y = model.predict(feeds);
    const [node] = model.outputs[0].tensorName.split(':');
    assert.deepEqual(first.nodes.find((n) => n.name === node).outputs[0].shape, y.shape);
    closeTo(y.dataSync(), Object.values(reference.outputs)[0].data, 1e-5, 1e-4);
    y.dispose();

    const before = ctx.memory();
    model.profile(feeds);
    const after = ctx.memory();
    assert.equal(after.heapBytes, before.heapBytes);
    assert.equal(after.numTensors, before.numTensors);
    model.dispose();
    for (const t of Object.values(feeds)) t.dispose();
    assert.equal(ctx.memory().numTensors, 0);
    ctx.dispose();
  });
}
