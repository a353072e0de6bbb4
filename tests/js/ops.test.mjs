// ctx.ops helpers and the chainable Tensor methods (issue 17): each against the raw execute call it
// stands for (same values, and a cache hit on that op's kernel: the cache sees the same ops) and
// against values worked out by hand; TF.js's spellings; bad arguments; no temporaries left behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, throwsCode } from './helpers.mjs';
import { checkOpsCases, plain } from './ops-cases.mjs';

const { EagerContext, Tensor } = api;

test('every ctx.ops helper and Tensor method matches its raw execute call, values worked out by hand, and hits its kernel', () => {
  const ctx = new EagerContext();
  assert.deepEqual(checkOpsCases(ctx), []);
  const x = ctx.tensor([[1, 2, 3], [4, 5, 6]]);
  const base = ctx.memory().numTensors;
  // Outside tidy too: a helper's temporaries (axis tensors, converted numbers) are disposed.
  for (const call of [(t) => t.add(1), (t) => t.sum(), (t) => t.expandDims(0), (t) => t.slice([0, 1]), (t) => t.pad([[1, 1], [0, 0]])]) {
    call(x).dispose();
    assert.equal(ctx.memory().numTensors, base);
  }
  const { selectedIndices, selectedScores } = ctx.ops.image.nonMaxSuppressionWithScore(
    [[0, 0, 1, 1], [0, 0, 0.9, 1], [0, 2, 1, 3]], [0.9, 0.8, 0.7], 3, 0.5, 0,
  );
  assert.deepEqual(Array.from(selectedIndices.dataSync()), [0, 2]);
  assert.deepEqual(Array.from(selectedScores.dataSync(), (v) => Math.round(v * 100) / 100), [0.9, 0.7]);
  selectedIndices.dispose();
  selectedScores.dispose();
  assert.equal(ctx.memory().numTensors, base);
  ctx.dispose();
});

test('ops helpers: TF.js option spellings and the earlier options objects give the same op', () => {
  const ctx = new EagerContext();
  const img = ctx.tensor(new Float32Array(16).map((_, i) => i), [1, 4, 4, 1]);
  const f = ctx.tensor(new Float32Array([1, 0, 0, 1]), [2, 2, 1, 1]);
  const same = (a, b) => {
    assert.deepEqual(plain(a), plain(b));
    a.dispose();
    b.dispose();
  };
  same(ctx.ops.conv2d(img, f, 2, 'same'), ctx.ops.conv2d(img, f, { strides: [1, 2, 2, 1], padding: 'SAME' }));
  same(ctx.ops.conv2d(img, f, [1, 1], 'valid', 'NHWC', [2, 2]), ctx.ops.conv2d(img, f, { strides: 1, padding: 'VALID', dilations: 2 }));
  same(ctx.ops.maxPool(img, [2, 2], [2, 2], 'valid'), ctx.ops.maxPool(img, { filterSize: 2 }));
  same(ctx.ops.avgPool(img, 3, 1, 0), ctx.ops.avgPool(img, { filterSize: 3, strides: 1, padding: 'VALID' }));
  same(ctx.ops.sum(img, [1, 2]), ctx.ops.sum(img, [2, 1]));
  img.dispose();
  f.dispose();
  assert.equal(ctx.memory().numTensors, 0);
  ctx.dispose();
});

test('ops helpers: bad arguments are InvalidArgument, and nothing is left behind', () => {
  const ctx = new EagerContext();
  const x = ctx.tensor([[1, 2, 3], [4, 5, 6]]);
  const xi = ctx.tensor([1, 2], [2], 'int32');
  const x4 = ctx.tensor(new Float32Array(6), [1, 2, 3, 1]);
  throwsCode(() => x.reshape([4, 4]), 'InvalidArgument');
  throwsCode(() => x.reshape([1.5, 4]), 'InvalidArgument', /int32/);
  throwsCode(() => x.sum('a'), 'InvalidArgument');
  throwsCode(() => x.argMax([0, 1]), 'InvalidArgument', /argMax: axis must be an integer/);
  throwsCode(() => x.softmax(0), 'InvalidArgument', /non-last dimension/);
  throwsCode(() => x.add('a'), 'InvalidArgument');
  // (xi.add(1.5) widens to float32 as TF.js does: see the widening test below.)
  throwsCode(() => xi.add([[1], [2, 3]]), 'InvalidArgument');
  throwsCode(() => x.pad(null), 'InvalidArgument');
  throwsCode(() => ctx.ops.conv2d(x4, x, 1, 'valid'), 'InvalidArgument');
  throwsCode(() => ctx.ops.maxPool(x4, 2, 1, [[0, 0]]), 'InvalidArgument', /pad/);
  throwsCode(() => ctx.ops.conv2d(x, x, { get strides() { throw new Error('getter'); } }), 'InvalidArgument', /getter/);
  throwsCode(() => ctx.ops.concat([x, 5], 7), 'InvalidArgument');
  throwsCode(() => ctx.ops.gather(x, [7]), 'InvalidArgument');
  assert.equal(ctx.memory().numTensors, 3);
  xi.dispose();
  x4.dispose();
  x.dispose();
  throwsCode(() => x.add(x), 'FailedPrecondition');
  ctx.dispose();
});

test('chainable methods exist for the helpers that take a tensor first, and not over Tensor members', () => {
  for (const m of ['add', 'reshape', 'expandDims', 'squeeze', 'slice', 'sum', 'mean', 'argMax', 'relu', 'resizeBilinear', 'matMul', 'concat', 'stack', 'unstack', 'clone', 'topk', 'where', 'flatten', 'asType', 'toFloat', 'as2D']) {
    assert.equal(typeof Tensor.prototype[m], 'function', m);
  }
  // TF.js has no such methods (x.where(cond, y) is TF.js's where(cond, x, y)).
  for (const m of ['zeros', 'range', 'image', 'addN', 'tensor', 'scalar', 'linspace', 'moments', 'gatherND']) {
    assert.equal(Tensor.prototype[m], undefined, m);
  }
  const ctx = new EagerContext();
  const t = ctx.tensor([1, 2]);
  assert.equal(t.size, 2);
  assert.equal(typeof t.dispose, 'function');
  t.dispose();
  ctx.dispose();
});

test('binary helpers widen mixed operands as TF.js upcasts; a JS number is float32, as in TF.js', () => {
  const ctx = new EagerContext();
  const i = ctx.tensor(new Int32Array([1, 2, 3]));
  const f = ctx.tensor(new Float32Array([0.5, 0.5, 0.5]));
  const b = ctx.tensor([true, false, true]);
  const base = ctx.memory().numTensors;
  const check = (t, dtype, values) => {
    assert.equal(t.dtype, dtype);
    assert.deepEqual(Array.from(t.dataSync(), Number), values);
    t.dispose();
  };
  check(i.add(1), 'float32', [2, 3, 4]);
  check(i.add(new Int32Array([1])), 'int32', [2, 3, 4]);
  check(i.add(1.5), 'float32', [2.5, 3.5, 4.5]);
  check(i.div(2), 'float32', [0.5, 1, 1.5]);
  const two = ctx.tensor(new Int32Array([2]));
  check(i.div(two), 'int32', [0, 1, 1]);
  two.dispose();
  check(i.mean(), 'float32', [2]);
  check(i.add(2 ** 40), 'float32', [2 ** 40 + 1, 2 ** 40 + 2, 2 ** 40 + 3].map(Math.fround));
  check(i.mul(f), 'float32', [0.5, 1, 1.5]);
  check(f.sub(i), 'float32', [-0.5, -1.5, -2.5]);
  check(b.add(i), 'int32', [2, 2, 4]);
  check(ctx.ops.greater(i, f), 'bool', [1, 1, 1]);
  check(ctx.ops.maximum(2.5, i), 'float32', [2.5, 2.5, 3]);
  // Same as the raw ops on explicitly cast operands.
  const [cast] = ctx.execute('Cast', [i], { DstT: 'float32' });
  const [raw] = ctx.execute('Mul', [cast, f]);
  check(i.mul(f), 'float32', Array.from(raw.dataSync()));
  cast.dispose();
  raw.dispose();
  // The temporaries (cast operands, converted numbers) are gone.
  assert.equal(ctx.memory().numTensors, base);
  // What cannot be widened still fails with a code, nothing left behind.
  throwsCode(() => ctx.ops.logicalAnd(b, i), 'InvalidArgument');
  assert.equal(ctx.memory().numTensors, base);
  ctx.dispose();
});
