// ctx.fromPixels in Node: raw { data, width, height } (the browser sources are checked in headless
// Chromium by scripts/chromium-check.mjs). Issue 17.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, throwsCode } from './helpers.mjs';

const { EagerContext } = api;

/** A width x height RGBA image whose pixel p has bytes [p, 100 + p, 200 - p, 255 - p]. */
function rgba(width, height) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let p = 0; p < width * height; p++) data.set([p, 100 + p, 200 - p, 255 - p], p * 4);
  return { data, width, height };
}

/** The first `c` channels of each pixel of `img`, as fromPixels should give them. */
function expected(img, c) {
  const out = [];
  for (let p = 0; p < img.width * img.height; p++) out.push(...img.data.subarray(p * 4, p * 4 + c));
  return out;
}

test('fromPixels: raw RGBA data, every channel count, int32 by default and uint8 when asked', () => {
  const ctx = new EagerContext();
  const img = rgba(5, 3);
  for (const c of [1, 2, 3, 4]) {
    for (const dtype of ['int32', 'uint8']) {
      const t = ctx.fromPixels(img, c, dtype === 'int32' ? undefined : { dtype });
      assert.equal(t.dtype, dtype);
      assert.deepEqual(t.shape, [3, 5, c]);
      assert.deepEqual(Array.from(t.dataSync()), expected(img, c), `${c} channels, ${dtype}`);
      t.dispose();
    }
  }
  const t = ctx.fromPixels(img);
  assert.deepEqual(t.shape, [3, 5, 3], 'numChannels defaults to 3, as in TF.js');
  t.dispose();
  // A Uint8Array works too, and data with fewer bytes per pixel (grayscale, RGB).
  const gray = ctx.fromPixels({ data: new Uint8Array([0, 128, 255, 7]), width: 2, height: 2 }, 1);
  assert.deepEqual(gray.shape, [2, 2, 1]);
  assert.deepEqual(Array.from(gray.dataSync()), [0, 128, 255, 7]);
  gray.dispose();
  const rgb = ctx.fromPixels({ data: new Uint8Array([1, 2, 3, 4, 5, 6]), width: 2, height: 1 }, 3, { dtype: 'uint8' });
  assert.deepEqual(Array.from(rgb.dataSync()), [1, 2, 3, 4, 5, 6]);
  rgb.dispose();
  assert.equal(ctx.memory().numTensors, 0, 'no intermediate left behind');
  ctx.dispose();
});

test('fromPixels: bad sources, channel counts and dtypes are InvalidArgument, nothing leaked', () => {
  const ctx = new EagerContext();
  const heap = ctx.memory().heapBytes;
  const img = rgba(2, 2);
  const bad = [
    [null, /image source/],
    [42, /image source/],
    [{ data: [1, 2, 3, 4], width: 1, height: 1 }, /Uint8Array/],
    [{ data: new Float32Array(4), width: 1, height: 1 }, /Uint8Array/],
    [{ data: new Uint8Array(5), width: 1, height: 1 }, /1 to 4 per pixel/],
    [{ data: new Uint8Array(20), width: 2, height: 2 }, /1 to 4 per pixel/],
    [{ data: new Uint8Array(4), width: 0, height: 2 }, /0x2/],
    [{ data: new Uint8Array(4), width: 1.5, height: 2 }, /1.5x2/],
    [{ get data() { throw new Error('getter'); }, width: 1, height: 1 }, /getter/],
  ];
  for (const [source, re] of bad) throwsCode(() => ctx.fromPixels(source), 'InvalidArgument', re);
  for (const c of [0, 5, 2.5, '3', null]) throwsCode(() => ctx.fromPixels(img, c), 'InvalidArgument', /numChannels/);
  throwsCode(() => ctx.fromPixels({ data: new Uint8Array(4), width: 2, height: 2 }, 3), 'InvalidArgument', /3 channels asked/);
  throwsCode(() => ctx.fromPixels(img, 3, { dtype: 'float32' }), 'InvalidArgument', /'float32'/);
  assert.equal(ctx.memory().numTensors, 0);
  assert.equal(ctx.memory().heapBytes, heap);
  ctx.dispose();
});
