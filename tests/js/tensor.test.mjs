import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { api, throwsCode } from './helpers.mjs';

const { EagerContext, Tensor } = api;

test('init is idempotent', async () => {
  await api.init();
  await api.init();
});

test('tensors from typed arrays keep their dtype and values', () => {
  const ctx = new EagerContext();
  const f = ctx.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
  assert.ok(f instanceof Tensor);
  assert.equal(f.dtype, 'float32');
  assert.deepEqual(f.shape, [2, 2]);
  assert.equal(f.rank, 2);
  assert.equal(f.size, 4);
  assert.deepEqual(f.dataSync(), new Float32Array([1, 2, 3, 4]));
  assert.deepEqual(f.arraySync(), [[1, 2], [3, 4]]);
  const i = ctx.tensor(new Int32Array([5, -6]));
  assert.equal(i.dtype, 'int32');
  assert.deepEqual(i.shape, [2]);
  assert.deepEqual(i.dataSync(), new Int32Array([5, -6]));
  const l = ctx.tensor(new BigInt64Array([2n ** 40n, -1n]));
  assert.equal(l.dtype, 'int64');
  assert.deepEqual(l.dataSync(), new BigInt64Array([2n ** 40n, -1n]));
  const b = ctx.tensor(new Uint8Array([1, 0, 7]), undefined, 'bool');
  assert.equal(b.dtype, 'bool');
  assert.deepEqual(b.dataSync(), new Uint8Array([1, 0, 1]));
  assert.deepEqual(b.arraySync(), [true, false, true]);
  ctx.dispose();
});

test('tensors from nested arrays, scalars and a dtype argument', async () => {
  const ctx = new EagerContext();
  const m = ctx.tensor([[1, 0], [0, 1]]);
  assert.equal(m.dtype, 'float32');
  assert.deepEqual(m.shape, [2, 2]);
  assert.deepEqual(await m.data(), new Float32Array([1, 0, 0, 1]));
  const s = ctx.tensor(3.5);
  assert.deepEqual(s.shape, []);
  assert.deepEqual(s.dataSync(), new Float32Array([3.5]));
  const i = ctx.tensor([1, 2, 3], [3], 'int32');
  assert.equal(i.dtype, 'int32');
  assert.deepEqual(i.dataSync(), new Int32Array([1, 2, 3]));
  const l = ctx.tensor([[1, 2]], undefined, 'int64');
  assert.deepEqual(l.dataSync(), new BigInt64Array([1n, 2n]));
  const bb = ctx.tensor([true, false]);
  assert.equal(bb.dtype, 'bool');
  const r = ctx.tensor(new Float64Array([0.5, 1.5]), [1, 2]);
  assert.equal(r.dtype, 'float32');
  assert.deepEqual(await r.array(), [[0.5, 1.5]]);
  const empty = ctx.tensor(new Float32Array(0), [0, 3]);
  assert.deepEqual(empty.shape, [0, 3]);
  assert.equal(empty.dataSync().length, 0);
  ctx.dispose();
});

test('readInto copies into a caller-owned array of the dtype and checks it', () => {
  const ctx = new EagerContext();
  const f = ctx.tensor(new Float32Array([1.5, -2, 3]), [3]);
  const target = new Float32Array([9, 9, 9, 9]);
  assert.equal(f.readInto(target), target);
  assert.deepEqual(target, new Float32Array([1.5, -2, 3, 9])); // the tail is left alone
  const i = ctx.tensor(new Int32Array([7, -8]));
  assert.deepEqual(i.readInto(new Int32Array(2)), new Int32Array([7, -8]));
  const l = ctx.tensor(new BigInt64Array([2n ** 40n]));
  assert.deepEqual(l.readInto(new BigInt64Array(1)), new BigInt64Array([2n ** 40n]));
  const b = ctx.tensor(new Uint8Array([1, 0, 1]), undefined, 'bool');
  assert.deepEqual(b.readInto(new Uint8Array(3)), new Uint8Array([1, 0, 1]));
  // A view at an offset into a larger buffer is written where it points.
  const buf = new Float32Array(6);
  f.readInto(buf.subarray(2));
  assert.deepEqual(buf, new Float32Array([0, 0, 1.5, -2, 3, 0]));
  throwsCode(() => f.readInto(new Float32Array(2)), 'InvalidArgument', /holds 2 elements, the tensor has 3/);
  throwsCode(() => f.readInto(new Float64Array(3)), 'InvalidArgument', /float32 tensor reads into a Float32Array/);
  throwsCode(() => i.readInto(new Float32Array(2)), 'InvalidArgument', /Int32Array/);
  throwsCode(() => f.readInto([0, 0, 0]), 'InvalidArgument', /Float32Array, got an array/);
  throwsCode(() => f.readInto(undefined), 'InvalidArgument', /got undefined/);
  const before = ctx.memory().heapBytes;
  for (let k = 0; k < 100; k++) f.readInto(target);
  assert.equal(ctx.memory().heapBytes, before);
  f.dispose();
  throwsCode(() => f.readInto(target), 'FailedPrecondition');
  // The context is still usable after every failure.
  assert.deepEqual(i.readInto(new Int32Array(2)), new Int32Array([7, -8]));
  ctx.dispose();
});

test('bad tensor input is an EagerError, nothing is allocated', () => {
  const ctx = new EagerContext();
  const before = ctx.memory();
  throwsCode(() => ctx.tensor(new Float32Array(3), [2, 2]), 'InvalidArgument', /3 values given for shape \[2, 2\]/);
  throwsCode(() => ctx.tensor(new Float32Array(3), [3, -1]), 'InvalidArgument', /negative/);
  throwsCode(() => ctx.tensor(new Float32Array(3), [1.5, 2]), 'InvalidArgument', /integers/);
  throwsCode(() => ctx.tensor(new Float32Array(3), [1e9, 1e9]), 'ResourceExhausted');
  throwsCode(() => ctx.tensor([[1, 2], [3]]), 'InvalidArgument', /rectangular/);
  // A string is a scalar string tensor (as tf.tensor('abc')), not an error.
  const str = ctx.tensor('abc');
  assert.deepEqual([str.dtype, str.shape, str.dataSync()], ['string', [], ['abc']]);
  str.dispose();
  throwsCode(() => ctx.tensor([1.5], [1], 'int64'), 'InvalidArgument');
  throwsCode(() => ctx.tensor([1], [1], 'float16'), 'InvalidArgument', /unsupported dtype/);
  const after = ctx.memory();
  assert.equal(after.heapBytes, before.heapBytes);
  assert.equal(after.numTensors, before.numTensors);
  ctx.dispose();
});

test('dispose releases memory and is idempotent; disposed tensors throw FailedPrecondition', () => {
  const ctx = new EagerContext();
  const before = ctx.memory();
  const t = ctx.tensor(new Float32Array(1000), [10, 100]);
  const during = ctx.memory();
  assert.equal(during.numTensors, before.numTensors + 1);
  assert.equal(during.tensorBytes, before.tensorBytes + 4000);
  assert.ok(during.heapBytes >= before.heapBytes + 4000);
  assert.equal(t.isDisposed, false);
  t.dispose();
  t.dispose();
  assert.equal(t.isDisposed, true);
  assert.deepEqual(t.shape, [10, 100], 'shape stays readable');
  throwsCode(() => t.dataSync(), 'FailedPrecondition', /disposed/);
  const after = ctx.memory();
  assert.equal(after.numTensors, before.numTensors);
  assert.equal(after.heapBytes, before.heapBytes);
  ctx.dispose();
});

test('tidy disposes intermediates and keeps what it returns (nested too)', () => {
  const ctx = new EagerContext();
  const base = ctx.memory().numTensors;
  const kept = ctx.tidy(() => {
    ctx.tensor([1, 2]);
    ctx.tensor([3, 4]);
    const inner = ctx.tidy('inner', () => {
      ctx.tensor([5]);
      return { a: ctx.tensor([6]), list: [ctx.tensor([7])] };
    });
    assert.equal(ctx.memory().numTensors, base + 4);
    return [inner.a, inner.list[0]];
  });
  assert.equal(ctx.memory().numTensors, base + 2);
  assert.deepEqual(kept[0].dataSync(), new Float32Array([6]));
  assert.equal(kept[1].isDisposed, false);
  kept.forEach((t) => t.dispose());
  assert.equal(ctx.memory().numTensors, base);

  assert.throws(() => ctx.tidy(() => {
    ctx.tensor([1]);
    throw new Error('boom');
  }), /boom/);
  assert.equal(ctx.memory().numTensors, base, 'a throwing tidy still disposes');
  throwsCode(() => ctx.tidy(async () => ctx.tensor([1])), 'InvalidArgument', /synchronous/);
  assert.equal(ctx.memory().numTensors, base);
  ctx.dispose();
});

test('context dispose releases its tensors; the disposed context throws FailedPrecondition', () => {
  const ctx = new EagerContext();
  const other = new EagerContext();
  const keep = other.tensor([1, 2, 3]);
  const base = ctx.memory().numTensors;
  const a = ctx.tensor([1, 2, 3]);
  ctx.tensor([4, 5, 6]);
  assert.equal(other.memory().numTensors, base + 2);
  ctx.dispose();
  ctx.dispose();
  assert.equal(ctx.isDisposed, true);
  assert.equal(a.isDisposed, true);
  assert.equal(keep.isDisposed, false);
  assert.equal(other.memory().numTensors, base);
  throwsCode(() => ctx.memory(), 'FailedPrecondition', /disposed/);
  throwsCode(() => ctx.tensor([1]), 'FailedPrecondition', /disposed/);
  throwsCode(() => ctx.execute('VarHandleOp', [], { dtype: 'float32', shape: [] }), 'FailedPrecondition');
  throwsCode(() => ctx.cacheStats(), 'FailedPrecondition');
  keep.dispose();
  other.dispose();
});

test('garbage-collected tensors are released by the FinalizationRegistry', async (t) => {
  if (typeof globalThis.gc !== 'function') {
    t.skip('run node with --expose-gc to check finalization');
    return;
  }
  const ctx = new EagerContext();
  const base = ctx.memory().numTensors;
  (() => {
    for (let i = 0; i < 100; i++) ctx.tensor(new Float32Array(16), [16]);
  })();
  assert.equal(ctx.memory().numTensors, base + 100);
  for (let i = 0; i < 20 && ctx.memory().numTensors > base; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(ctx.memory().numTensors, base);
  ctx.dispose();
});

test('memory() has exactly the documented fields', () => {
  const ctx = new EagerContext();
  const m = ctx.memory();
  assert.deepEqual(Object.keys(m).sort(), [
    'cacheBytes', 'cacheEntries', 'heapBytes', 'heapPeakBytes', 'numPacked', 'numResources',
    'numTensors', 'packedBytes', 'resourceBytes', 'tensorBytes', 'wasmMemoryBytes',
  ]);
  for (const v of Object.values(m)) assert.equal(typeof v, 'number');
  assert.ok(m.wasmMemoryBytes >= m.heapBytes);
  assert.ok(m.heapPeakBytes >= m.heapBytes);
  ctx.dispose();
});

test('toString/print/inspect show the values as TF.js does, long dims truncated', () => {
  const ctx = new EagerContext();
  const a = ctx.tensor([[1, 2.5], [3, -4]]);
  assert.equal(a.toString(), 'Tensor\n    [[1  , 2.5],\n     [3  , -4 ]]');
  assert.equal(
    a.toString(true),
    'Tensor\n  dtype: float32\n  rank: 2\n  shape: [2,2]\n  values:\n    [[1  , 2.5],\n     [3  , -4 ]]',
  );
  assert.equal(inspect(a), a.toString(), 'console.log(t) in Node shows the values');
  const long = ctx.tensor(Int32Array.from({ length: 30 }, (_, i) => i), [30]);
  assert.equal(long.toString(), 'Tensor\n    [0 , 1 , 2 , ..., 27, 28, 29]');
  const b = ctx.tensor([true, false]);
  assert.equal(b.toString(), 'Tensor\n    [true , false]');
  const s = ctx.tensor(0.1);
  assert.equal(s.toString(), 'Tensor\n    0.1');
  const logged = [];
  const orig = console.log;
  console.log = (m) => logged.push(m);
  try {
    a.print();
  } finally {
    console.log = orig;
  }
  assert.deepEqual(logged, [a.toString()]);
  a.dispose();
  assert.equal(a.toString(), 'Tensor\n    (disposed)');
  for (const t of [long, b, s]) t.dispose();
  ctx.dispose();
});
