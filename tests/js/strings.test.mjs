// String tensors through the JS API: strings in (UTF-8) and raw bytes in (Uint8Array, dtype
// 'string'), dataSync() (UTF-8 decoded) and bytesSync() (exact bytes) out, string ops, and the
// strings_vocab model (a hash table from the converter's modelInitializer) against TF's outputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, loadFixture, throwsCode } from './helpers.mjs';

const { EagerContext } = api;

test('string tensors from strings and bytes, read back as strings and exact bytes', () => {
  const ctx = new EagerContext();
  const s = ctx.tensor([['a', 'bc'], ['', 'd\u00e9']]);
  assert.equal(s.dtype, 'string');
  assert.deepEqual(s.shape, [2, 2]);
  assert.deepEqual(s.dataSync(), ['a', 'bc', '', 'd\u00e9']);
  assert.deepEqual(s.arraySync(), [['a', 'bc'], ['', 'd\u00e9']]);
  assert.deepEqual(s.bytesSync()[3], new Uint8Array([0x64, 0xc3, 0xa9]));
  const raw = ctx.tensor([new Uint8Array([0xff, 0]), 'x'], [2], 'string');
  assert.deepEqual(raw.bytesSync(), [new Uint8Array([0xff, 0]), new Uint8Array([0x78])]);
  assert.equal(raw.dataSync()[0], '\ufffd\u0000');
  assert.equal(ctx.tensor('one').rank, 0);
  // The bytes held are counted: 1 + 2 + 0 + 3, 2 + 1, 3.
  assert.equal(ctx.memory().tensorBytes, 12);
  throwsCode(() => ctx.tensor([1, 2], [2], 'string'), 'InvalidArgument');
  throwsCode(() => ctx.tensor(['a', 'b'], [3]), 'InvalidArgument');
  throwsCode(() => ctx.tensor([1]).bytesSync(), 'InvalidArgument');
  throwsCode(() => s.readInto(new Uint8Array(4)), 'InvalidArgument');
  ctx.dispose();
});

test('movement and comparison ops take strings; string ops run', () => {
  const ctx = new EagerContext();
  const w = ctx.tensor([['a', 'b', 'c'], ['d', 'e', 'f']]);
  const [t] = ctx.execute('Transpose', [w, ctx.tensor(new Int32Array([1, 0]))]);
  assert.deepEqual(t.dataSync(), ['a', 'd', 'b', 'e', 'c', 'f']);
  const [eq] = ctx.execute('Equal', [w, ctx.tensor(['a', 'x', 'c'])]);
  assert.deepEqual(eq.dataSync(), new Uint8Array([1, 0, 1, 0, 0, 0]));
  const [indices, values, shape] = ctx.execute('StringSplit', [ctx.tensor(['a b', 'c']), ctx.tensor(' ')]);
  assert.deepEqual(values.dataSync(), ['a', 'b', 'c']);
  assert.deepEqual(indices.dataSync(), new BigInt64Array([0n, 0n, 0n, 1n, 1n, 0n]));
  assert.deepEqual(shape.dataSync(), new BigInt64Array([2n, 2n]));
  const [r] = ctx.execute('StaticRegexReplace', [ctx.tensor(['Hello World'])], { pattern: '[aeiou]', rewrite: '_' });
  assert.deepEqual(r.dataSync(), ['H_ll_ W_rld']);
  ctx.dispose();
});

test('the strings_vocab model matches TF and releases its table with it', async () => {
  const ctx = new EagerContext();
  const { modelJson, shards, reference } = loadFixture('strings_vocab');
  const model = await ctx.loadGraphModel({ modelJson: JSON.parse(modelJson), weights: shards });
  assert.deepEqual(model.inputs.map((i) => i.dtype), ['string']);
  const text = reference.inputs.text;
  const bytes = text.data.map((b) => Uint8Array.from(Buffer.from(b, 'base64')));
  const out = model.predict(ctx.tensor(bytes, text.shape, 'string'));
  for (const [k, want] of Object.entries(reference.outputs)) {
    const got = out[k];
    assert.equal(got.dtype, want.dtype, k);
    assert.deepEqual(got.shape, want.shape, k);
    if (want.dtype === 'string') {
      assert.deepEqual(got.bytesSync().map((b) => Buffer.from(b).toString('base64')), want.data, k);
    } else {
      assert.deepEqual(Array.from(got.dataSync(), Number), want.data, k);
    }
    got.dispose();
  }
  model.dispose();
  assert.equal(ctx.memory().numResources, 0);
  ctx.dispose();
});

test('the strings_vocab model loaded, run and disposed 1,000 times leaves heap, tables and cache flat', async () => {
  const ctx = new EagerContext();
  const { modelJson, shards, reference } = loadFixture('strings_vocab');
  const json = JSON.parse(modelJson);
  const text = reference.inputs.text;
  const bytes = text.data.map((b) => Uint8Array.from(Buffer.from(b, 'base64')));
  const cycle = async () => {
    const model = await ctx.loadGraphModel({ modelJson: json, weights: shards });
    const x = ctx.tensor(bytes, text.shape, 'string');
    const out = model.predict(x);
    for (const t of Object.values(out)) t.dispose();
    x.dispose();
    model.dispose();
  };
  for (let i = 0; i < 3; i++) await cycle();
  const start = ctx.memory();
  for (let i = 0; i < 1000; i++) await cycle();
  const end = ctx.memory();
  for (const k of ['heapBytes', 'numTensors', 'tensorBytes', 'numResources', 'resourceBytes', 'cacheEntries', 'cacheBytes']) {
    assert.equal(end[k], start[k], k);
  }
  ctx.dispose();
});
