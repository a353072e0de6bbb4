import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, closeTo, missingOps, throwsCode } from './helpers.mjs';

const { EagerContext } = api;

test('MatMul (with transpose_b) matches hand-computed values', (t) => {
  const skip = missingOps('MatMul');
  if (skip) return t.skip(skip);
  const ctx = new EagerContext();
  const a = ctx.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
  const b = ctx.tensor([[1, 0], [0, 1]]);
  const [c] = ctx.execute('MatMul', [a, b], { transpose_b: true });
  assert.deepEqual(c.shape, [2, 2]);
  assert.equal(c.dtype, 'float32');
  assert.deepEqual(c.dataSync(), new Float32Array([1, 2, 3, 4]));
  const m = ctx.tensor([[1, 2, 3], [4, 5, 6]]); // [2,3]
  const n = ctx.tensor([[7, 8, 9], [10, 11, 12]]); // [2,3]
  const [p] = ctx.execute('MatMul', [m, n], { transpose_b: true }); // [2,2]
  // [1,2,3].[7,8,9]=50, [1,2,3].[10,11,12]=68, [4,5,6].[7,8,9]=122, [4,5,6].[10,11,12]=167
  assert.deepEqual(p.arraySync(), [[50, 68], [122, 167]]);
  const q = ctx.ops.matMul(m, n, { transposeA: true }); // [3,3]
  assert.deepEqual(q.shape, [3, 3]);
  closeTo(q.dataSync(), [47, 52, 57, 64, 71, 78, 81, 90, 99]);
  ctx.dispose();
});

test('Add / AddV2 broadcast and Relu match hand-computed values', (t) => {
  const skip = missingOps('AddV2', 'Add', 'Relu');
  const ctx = new EagerContext();
  const a = ctx.tensor([[1, -2], [3, -4]]);
  const b = ctx.tensor([10, 20]);
  const [s] = ctx.execute('AddV2', [a, b]);
  assert.deepEqual(s.arraySync(), [[11, 18], [13, 16]]);
  const [s2] = ctx.execute('Add', [a, ctx.tensor(-1)]);
  assert.deepEqual(s2.dataSync(), new Float32Array([0, -3, 2, -5]));
  const i = ctx.ops.add(ctx.tensor([1, 2], [2], 'int32'), ctx.tensor([3, 4], [2], 'int32'));
  assert.equal(i.dtype, 'int32');
  assert.deepEqual(i.dataSync(), new Int32Array([4, 6]));
  if (skip) {
    ctx.dispose();
    return t.skip(skip);
  }
  const [r] = ctx.execute('Relu', [a]);
  assert.deepEqual(r.dataSync(), new Float32Array([1, 0, 3, 0]));
  const y = ctx.tidy(() => ctx.execute('Relu', [ctx.execute('AddV2', [a, b])[0]])[0]);
  assert.deepEqual(y.dataSync(), new Float32Array([11, 18, 13, 16]));
  ctx.dispose();
});

test('typed helpers call the TF ops', (t) => {
  const ctx = new EagerContext();
  const x = ctx.tensor([1, 4, 9]);
  assert.deepEqual(ctx.ops.sqrt(x).dataSync(), new Float32Array([1, 2, 3]));
  assert.deepEqual(ctx.ops.mul(x, x).dataSync(), new Float32Array([1, 16, 81]));
  assert.deepEqual(ctx.ops.sub(x, ctx.tensor(1)).dataSync(), new Float32Array([0, 3, 8]));
  assert.deepEqual(ctx.ops.neg(x).dataSync(), new Float32Array([-1, -4, -9]));
  assert.deepEqual(ctx.ops.sum(ctx.tensor([[1, 2], [3, 4]]), [1]).dataSync(), new Float32Array([3, 7]));
  const c = ctx.ops.cast(x, 'int32');
  assert.equal(c.dtype, 'int32');
  const skip = missingOps('Reshape', 'Conv2D');
  if (skip) {
    ctx.dispose();
    return t.skip(skip);
  }
  assert.deepEqual(ctx.ops.reshape(ctx.tensor([1, 2, 3, 4]), [2, 2]).shape, [2, 2]);
  // 1x3x3x1 input, 2x2 filter of ones, VALID: sums of 2x2 windows
  const img = ctx.tensor(new Float32Array([1, 2, 3, 4, 5, 6, 7, 8, 9]), [1, 3, 3, 1]);
  const f = ctx.tensor(new Float32Array([1, 1, 1, 1]), [2, 2, 1, 1]);
  const y = ctx.ops.conv2d(img, f, { strides: 1, padding: 'VALID' });
  assert.deepEqual(y.shape, [1, 2, 2, 1]);
  assert.deepEqual(y.dataSync(), new Float32Array([12, 16, 24, 28]));
  ctx.dispose();
});

test('variables through execute: VarHandleOp, AssignVariableOp, ReadVariableOp', () => {
  const ctx = new EagerContext();
  const [h] = ctx.execute('VarHandleOp', [], { dtype: 'float32', shape: [2], shared_name: 'v' });
  assert.equal(h.dtype, 'resource');
  throwsCode(() => h.dataSync(), 'InvalidArgument', /resource/);
  ctx.execute('AssignVariableOp', [h, ctx.tensor([1, 2])]);
  ctx.execute('AssignAddVariableOp', [h, ctx.tensor([10, 10])]);
  const [v] = ctx.execute('ReadVariableOp', [h], { dtype: 'float32' });
  assert.deepEqual(v.dataSync(), new Float32Array([11, 12]));
  assert.equal(ctx.memory().numResources, 1);
  assert.equal(ctx.memory().resourceBytes, 8);
  ctx.dispose();
});

test('errors are EagerErrors with TF codes, and the context keeps working with heap unchanged', () => {
  const ctx = new EagerContext();
  const a = ctx.tensor([[1, 2, 3], [4, 5, 6]]);
  const b = ctx.tensor([[1, 2], [3, 4]]);
  const other = new EagerContext();
  const foreign = other.tensor([1, 2, 3]);
  const dead = ctx.tensor([1]);
  dead.dispose();
  const axis = ctx.tensor([1], [1], 'int32');
  const ints = ctx.tensor([1, 2, 3], [3], 'int32');
  // Warm up every op used below, so that first-use cache entries are not counted as leaks.
  ctx.execute('AddV2', [a, a]).forEach((t) => t.dispose());
  const [h] = ctx.execute('VarHandleOp', [], { dtype: 'float32', shape: [2, 2], shared_name: 'w' });
  ctx.execute('AssignVariableOp', [h, b]);
  const before = ctx.memory();

  throwsCode(() => ctx.execute('NoSuchOp', [a]), 'NotFound', /NoSuchOp/);
  throwsCode(() => ctx.execute(42, [a]), 'InvalidArgument');
  throwsCode(() => ctx.execute('VarHandleOp', [], { dtype: 'float32', shape: [2, 2], shared_name: 7 }), 'InvalidArgument', /shared_name.*must be a string, got number 7/);
  throwsCode(() => ctx.execute('VarHandleOp', [], { dtype: 'float33', shape: [] }), 'InvalidArgument', /float33/);
  throwsCode(() => ctx.execute('Sum', [a, axis], { keep_dims: 'yes' }), 'InvalidArgument', /keep_dims.*boolean/);
  throwsCode(() => ctx.execute('AddV2', [a], {}), 'InvalidArgument', /expects 2 inputs/);
  throwsCode(() => ctx.execute('AddV2', [a, b]), 'InvalidArgument', /shape|broadcast/i);
  throwsCode(() => ctx.execute('AddV2', [a, a], { bogus: 1 }), 'InvalidArgument', /no attr 'bogus'/);
  throwsCode(() => ctx.execute('AddV2', [a, ints]), 'InvalidArgument');
  throwsCode(() => ctx.execute('AssignVariableOp', [h, a]), 'InvalidArgument', /shape/);
  throwsCode(() => ctx.execute('AddV2', [a, dead]), 'FailedPrecondition', /disposed/);
  throwsCode(() => ctx.execute('AddV2', [a, foreign]), 'InvalidArgument', /another EagerContext/);
  throwsCode(() => ctx.execute('AddV2', [a, 'x']), 'InvalidArgument', /not a Tensor/);
  throwsCode(() => ctx.execute('AddV2', [a, a], 'attrs'), 'InvalidArgument', /attrs must be an object/);

  const after = ctx.memory();
  assert.equal(after.heapBytes, before.heapBytes, 'heap in use back where it was');
  assert.equal(after.numTensors, before.numTensors);
  // Still usable.
  const [ok] = ctx.execute('AddV2', [a, a]);
  assert.deepEqual(ok.dataSync(), new Float32Array([2, 4, 6, 8, 10, 12]));
  ctx.dispose();
  other.dispose();
});

test('execute is usable with attrs given as undefined / empty object', () => {
  const ctx = new EagerContext();
  const a = ctx.tensor([1, 2]);
  assert.equal(ctx.execute('Neg', [a], undefined)[0].dataSync()[1], -2);
  assert.equal(ctx.execute('Neg', [a], {})[0].dataSync()[1], -2);
  assert.equal(ctx.execute('Neg', [a], { T: 'float32' })[0].dataSync()[1], -2);
  throwsCode(() => ctx.execute('Neg', [a], { T: 'int32' }), 'InvalidArgument', /does not match attr 'T'/);
  ctx.dispose();
});
