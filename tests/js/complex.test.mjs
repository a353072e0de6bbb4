// complex64 tensors through the JS API: made from interleaved (real, imaginary) floats with dtype
// 'complex64', read back the same way (dataSync, readInto) and nested as TF.js nests them
// (arraySync), through the FFT family and the complex arithmetic.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, closeTo, throwsCode } from './helpers.mjs';

const { EagerContext } = api;

/** The O(n^2) DFT of interleaved pairs (forward, or inverse divided by n). */
function dft(pairs, inverse = false) {
  const n = pairs.length / 2;
  const out = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    for (let j = 0; j < n; j++) {
      const a = ((inverse ? 2 : -2) * Math.PI * ((j * k) % n)) / n;
      const [re, im] = [pairs[2 * j], pairs[2 * j + 1]];
      out[2 * k] += re * Math.cos(a) - im * Math.sin(a);
      out[2 * k + 1] += re * Math.sin(a) + im * Math.cos(a);
    }
  }
  return inverse ? out.map((v) => v / n) : out;
}

test('complex64 tensors take and give interleaved (re, im) pairs; shape is the logical shape', () => {
  const ctx = new EagerContext();
  const values = new Float32Array([1, 2, 3, 4, 5, 6]);
  const c = ctx.tensor(values, [3], 'complex64');
  assert.equal(c.dtype, 'complex64');
  assert.deepEqual(c.shape, [3]);
  assert.equal(c.size, 3);
  assert.deepEqual(c.dataSync(), values);
  const into = new Float32Array(6);
  c.readInto(into);
  assert.deepEqual(into, values);
  throwsCode(() => c.readInto(new Float32Array(5)), 'InvalidArgument');
  // Shape inferred from the pairs; nested rows hold pairs, as arraySync() gives them (TF.js's layout).
  assert.deepEqual(ctx.tensor(values, undefined, 'complex64').shape, [3]);
  const m = ctx.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], undefined, 'complex64');
  assert.deepEqual(m.shape, [2, 2]);
  assert.deepEqual(m.arraySync(), [[1, 2, 3, 4], [5, 6, 7, 8]]);
  // A complex scalar's arraySync() is its real part, as in TF.js.
  assert.equal(ctx.tensor(new Float32Array([7, -1]), [], 'complex64').arraySync(), 7);
  throwsCode(() => ctx.tensor(new Float32Array([1, 2, 3]), undefined, 'complex64'), 'InvalidArgument', /pairs/);
  throwsCode(() => ctx.tensor(new Float32Array([1, 2, 3, 4]), [3], 'complex64'), 'InvalidArgument');
  assert.match(ctx.tensor(new Float32Array([1.5, -2]), [1], 'complex64').toString(), /1\.5 \+ -2j/);
  // Parts, Cast (to a real dtype keeps the real part), arithmetic.
  assert.deepEqual(ctx.execute('Real', [c])[0].dataSync(), new Float32Array([1, 3, 5]));
  assert.deepEqual(ctx.execute('Imag', [c])[0].dataSync(), new Float32Array([2, 4, 6]));
  const [built] = ctx.execute('Complex', [ctx.tensor([1, 3, 5]), ctx.tensor([2, 4, 6])]);
  assert.deepEqual(built.dataSync(), values);
  assert.deepEqual(ctx.execute('Cast', [c], { DstT: 'int32' })[0].dataSync(), new Int32Array([1, 3, 5]));
  const [prod] = ctx.execute('Mul', [c, c]);
  // (1+2i)^2 = -3+4i, (3+4i)^2 = -7+24i, (5+6i)^2 = -11+60i
  assert.deepEqual(prod.dataSync(), new Float32Array([-3, 4, -7, 24, -11, 60]));
  const [sum] = ctx.execute('Sum', [c, ctx.tensor(0, [], 'int32')]);
  assert.deepEqual(sum.dataSync(), new Float32Array([9, 12]));
  // ctx.ops widens to complex64, the widest dtype (as TF.js upcasts).
  const plusOne = ctx.ops.add(c, 1);
  assert.equal(plusOne.dtype, 'complex64');
  assert.deepEqual(plusOne.dataSync(), new Float32Array([2, 2, 4, 4, 6, 6]));
  ctx.dispose();
});

test('FFT, IFFT, RFFT and IRFFT of any length match the DFT, with TF scaling', () => {
  const ctx = new EagerContext();
  for (const n of [1, 2, 5, 8, 12, 17, 64]) {
    const pairs = Float32Array.from({ length: 2 * 2 * n }, (_, i) => Math.sin(i * 0.37) + 0.25 * Math.cos(i * 1.9));
    const x = ctx.tensor(pairs, [2, n], 'complex64');
    const [y] = ctx.execute('FFT', [x]);
    assert.equal(y.dtype, 'complex64');
    assert.deepEqual(y.shape, [2, n]);
    const got = y.dataSync();
    assert.equal(got.length, 4 * n);
    for (let row = 0; row < 2; row++) {
      const want = dft(pairs.subarray(2 * n * row, 2 * n * (row + 1)));
      closeTo(got.subarray(2 * n * row, 2 * n * (row + 1)), Array.from(want), 1e-4);
    }
    // IFFT(FFT(x)) = x (IFFT divides by n).
    const [back] = ctx.execute('IFFT', [y]);
    closeTo(back.dataSync(), Array.from(pairs), 1e-5);
    // RFFT keeps n/2 + 1 bins; IRFFT reads only those.
    const real = Float32Array.from({ length: n }, (_, i) => Math.cos(i * 0.7) - 0.1 * i);
    const [spec] = ctx.execute('RFFT', [ctx.tensor(real), ctx.tensor([n], undefined, 'int32')]);
    assert.deepEqual(spec.shape, [Math.floor(n / 2) + 1]);
    const full = dft(Float32Array.from({ length: 2 * n }, (_, i) => (i % 2 === 0 ? real[i / 2] : 0)));
    closeTo(spec.dataSync(), Array.from(full.subarray(0, spec.size * 2)), 1e-4);
    const [again] = ctx.execute('IRFFT', [spec, ctx.tensor([n], undefined, 'int32')]);
    assert.equal(again.dtype, 'float32');
    closeTo(again.dataSync(), Array.from(real), 1e-5);
  }
  throwsCode(() => ctx.execute('RFFT', [ctx.tensor([1, 2, 3]), ctx.tensor([5], undefined, 'int32')]), 'InvalidArgument');
  throwsCode(() => ctx.execute('FFT', [ctx.tensor([1, 2, 3])]), 'InvalidArgument');
  ctx.dispose();
});

test('complex64 memory is counted exactly: 8 bytes an element', () => {
  const ctx = new EagerContext();
  const before = ctx.memory();
  const c = ctx.tensor(new Float32Array(2 * 100), [10, 10], 'complex64');
  const during = ctx.memory();
  assert.equal(during.numTensors - before.numTensors, 1);
  assert.equal(during.tensorBytes - before.tensorBytes, 800);
  c.dispose();
  assert.equal(ctx.memory().tensorBytes, before.tensorBytes);
  ctx.dispose();
});
