// The model API on a hand-written model (tiny-model.mjs) that needs only always-present ops.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { api, rejectsCode, throwsCode } from './helpers.mjs';
import { tinyModelJson, tinyWeights } from './tiny-model.mjs';

const { EagerContext, GraphModel, Tensor } = api;

let server;
let base;
before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path.endsWith('/model.json')) return res.end(tinyModelJson);
    if (path === '/ok/tiny.bin') return res.end(tinyWeights);
    if (path === '/short/tiny.bin') return res.end(tinyWeights.subarray(0, 8));
    if (path === '/long/tiny.bin') return res.end(new Uint8Array(16));
    if (path === '/truncated/tiny.bin') {
      res.writeHead(200, { 'content-length': 1000 });
      res.write(tinyWeights);
      setTimeout(() => res.destroy(), 10);
      return;
    }
    if (path === '/error/tiny.bin') return res.writeHead(500).end();
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((r) => server.close(r)));

test('load from memory, predict (every feed form, several outputs), dispose', async () => {
  const ctx = new EagerContext();
  const model = await ctx.loadGraphModel({ modelJson: tinyModelJson, weights: tinyWeights.buffer });
  assert.ok(model instanceof GraphModel);
  assert.deepEqual(model.inputs, [{ name: 'x', tensorName: 'x:0', dtype: 'float32', shape: [-1, 3] }]);
  assert.deepEqual(model.outputs.map((o) => o.name).sort(), ['sum', 'y']);
  assert.equal(ctx.memory().numResources, 1);
  const x = ctx.tensor([[1, 1, 1], [0, 0, 0]]);
  for (const feed of [x, [x], { x }, { 'x:0': x }]) {
    const out = model.predict(feed);
    assert.ok(out.y instanceof Tensor && out.sum instanceof Tensor);
    assert.deepEqual(out.y.arraySync(), [[2, 6, 12], [1, 4, 9]]);
    assert.deepEqual(out.sum.arraySync(), [[2, 3, 4], [1, 2, 3]]);
    out.y.dispose();
    out.sum.dispose();
  }
  throwsCode(() => model.predict({ z: x }), 'InvalidArgument');
  throwsCode(() => model.predict(ctx.tensor([1, 2], [2], 'int32')), 'InvalidArgument');
  throwsCode(() => model.predict('x'), 'InvalidArgument');
  const other = new EagerContext();
  throwsCode(() => model.predict(other.tensor([[1, 2, 3]])), 'InvalidArgument', /another EagerContext/);
  other.dispose();
  model.dispose();
  model.dispose();
  assert.equal(model.isDisposed, true);
  assert.equal(ctx.memory().numResources, 0);
  throwsCode(() => model.predict(x), 'FailedPrecondition', /disposed/);
  ctx.dispose();
});

test('load -> predict -> dispose cycles: heap in use and cache identical after each', async () => {
  const ctx = new EagerContext();
  const x = ctx.tensor([[1, 2, 3]]);
  const heaps = [];
  const entries = [];
  for (let i = 0; i < 8; i++) {
    const model = await ctx.loadGraphModel({ modelJson: tinyModelJson, weights: [tinyWeights] });
    const out = model.predict(x);
    Object.values(out).forEach((t) => t.dispose());
    model.dispose();
    heaps.push(ctx.memory().heapBytes);
    entries.push(ctx.cacheStats().entries);
  }
  assert.equal(new Set(heaps.slice(1)).size, 1, `heap after each cycle: ${heaps}`);
  assert.equal(new Set(entries).size, 1, `cache entries: ${entries}`);
  assert.equal(ctx.memory().numResources, 0);
  ctx.dispose();
});

test('unique resource names: cache grows per load; anonymous: flat, with hits', async () => {
  const unique = new EagerContext({ resourceNames: 'unique' });
  const anon = new EagerContext({ resourceNames: 'anonymous' });
  const e = { unique: [], anon: [] };
  for (let i = 0; i < 5; i++) {
    (await unique.loadGraphModel({ modelJson: tinyModelJson, weights: tinyWeights })).dispose();
    (await anon.loadGraphModel({ modelJson: tinyModelJson, weights: tinyWeights })).dispose();
    e.unique.push(unique.cacheStats().byOp.VarHandleOp.entries);
    e.anon.push(anon.cacheStats().byOp.VarHandleOp.entries);
  }
  assert.deepEqual(e.unique, [1, 2, 3, 4, 5]);
  assert.deepEqual(e.anon, [1, 1, 1, 1, 1]);
  assert.equal(anon.cacheStats().byOp.VarHandleOp.hits, 4);
  unique.dispose();
  anon.dispose();
});

test('context dispose disposes its models', async () => {
  const ctx = new EagerContext();
  const model = await ctx.loadGraphModel({ modelJson: tinyModelJson, weights: { 'tiny.bin': tinyWeights } });
  ctx.dispose();
  assert.equal(model.isDisposed, true);
  const other = new EagerContext();
  throwsCode(() => model.predict(other.tensor([[1, 2, 3]])), 'FailedPrecondition');
  model.dispose();
  other.dispose();
});

test('load by URL: shards relative to model.json, progress 0 -> 1', async () => {
  const ctx = new EagerContext();
  const seen = [];
  const model = await ctx.loadGraphModel(`${base}/ok/model.json`, { onProgress: (f) => seen.push(f) });
  assert.equal(seen[0], 0);
  assert.equal(seen.at(-1), 1);
  assert.ok(seen.every((f, i) => i === 0 || f >= seen[i - 1]));
  const out = model.predict(ctx.tensor([[0, 0, 0]]));
  assert.deepEqual(out.y.dataSync(), new Float32Array([1, 4, 9]));
  // A custom fetch is used when given.
  let calls = 0;
  const m2 = await ctx.loadGraphModel(new URL(`${base}/ok/model.json`), {
    fetch: (u, init) => {
      calls++;
      return fetch(u, init);
    },
  });
  assert.equal(calls, 2);
  m2.dispose();
  ctx.dispose();
});

test('failed loads: NotFound / Unavailable / InvalidArgument, nothing left allocated', async () => {
  const ctx = new EagerContext();
  await rejectsCode(ctx.loadGraphModel(`${base}/short/model.json`), 'InvalidArgument');
  const m0 = ctx.memory();
  await rejectsCode(ctx.loadGraphModel(`${base}/nowhere/x.json`), 'NotFound', /HTTP 404/);
  await rejectsCode(ctx.loadGraphModel(`${base}/missing/model.json`), 'NotFound', /tiny\.bin/);
  await rejectsCode(ctx.loadGraphModel(`${base}/error/model.json`), 'Unavailable', /HTTP 500/);
  await rejectsCode(ctx.loadGraphModel(`${base}/truncated/model.json`), 'Unavailable', /interrupted|truncated/);
  await rejectsCode(ctx.loadGraphModel(`${base}/short/model.json`), 'InvalidArgument');
  await rejectsCode(ctx.loadGraphModel(`${base}/long/model.json`), 'InvalidArgument');
  await rejectsCode(ctx.loadGraphModel('http://127.0.0.1:9/model.json'), 'Unavailable');
  await rejectsCode(ctx.loadGraphModel(`${base}/ok/model.json`, { fetch: () => Promise.reject(new TypeError('offline')) }), 'Unavailable', /offline/);
  await rejectsCode(ctx.loadGraphModel({ modelJson: '{', weights: tinyWeights }), 'InvalidArgument');
  await rejectsCode(ctx.loadGraphModel({ modelJson: tinyModelJson.replace('"AddV2"', '"NoSuchOp"'), weights: tinyWeights }), 'Unimplemented', /NoSuchOp/);
  await rejectsCode(ctx.loadGraphModel({ modelJson: tinyModelJson, weights: 'abc' }), 'InvalidArgument');
  const m1 = ctx.memory();
  assert.equal(m1.heapBytes, m0.heapBytes);
  assert.equal(m1.numTensors, m0.numTensors);
  assert.equal(m1.numResources, 0);
  // Still usable.
  (await ctx.loadGraphModel({ modelJson: tinyModelJson, weights: tinyWeights })).dispose();
  ctx.dispose();
});

test('a progress callback that calls back into the context does not break the load', async () => {
  const ctx = new EagerContext();
  const model = await ctx.loadGraphModel({ modelJson: tinyModelJson, weights: tinyWeights }, {
    onProgress: () => {
      ctx.memory(); // re-entrant: FailedPrecondition inside the callback, swallowed
      throw new Error('callback failure');
    },
  });
  assert.equal(model.isDisposed, false);
  model.dispose();
  ctx.dispose();
});

test('load from a parsed model.json object: same model; edits between loads take effect', async () => {
  const ctx = new EagerContext();
  const run = async (modelJson, weights = tinyWeights) => {
    const model = await ctx.loadGraphModel({ modelJson, weights });
    const x = ctx.tensor([[1, 1, 1]]);
    const out = model.predict(x);
    const r = { y: out.y.arraySync(), sum: out.sum.arraySync() };
    out.y.dispose();
    out.sum.dispose();
    x.dispose();
    model.dispose();
    return r;
  };
  const obj = JSON.parse(tinyModelJson);
  assert.deepEqual(await run(obj), await run(tinyModelJson));
  // The same object, edited: an op changes; then the weight leaves the manifest and the Const's
  // own value (which the loader skips while the weights provide it) takes over.
  obj.modelTopology.node[3].op = 'AddV2';
  assert.deepEqual((await run(obj)).y, [[3, 5, 7]]);
  obj.modelTopology.node[1].attr.value.tensor.floatVal = [5, 5, 5];
  obj.weightsManifest[0].weights = [];
  assert.deepEqual((await run(obj, new Uint8Array(0))).y, [[11, 11, 11]]);
  // From the third load the text is reused while the object is unchanged; any edit is seen.
  const again = JSON.parse(tinyModelJson);
  for (let i = 0; i < 3; i++) assert.deepEqual((await run(again)).y, [[2, 6, 12]]);
  again.modelTopology.node[3].op = 'AddV2';
  assert.deepEqual((await run(again)).y, [[3, 5, 7]]);
  assert.deepEqual((await run(again)).y, [[3, 5, 7]]);
  again.modelTopology.node[3].op = 'Mul';
  assert.deepEqual((await run(again)).y, [[2, 6, 12]]);
  again.modelTopology.node[2].input = ['x', 'x'];
  assert.deepEqual((await run(again)).y, [[2, 4, 6]]);
  // Not plain data: serialized every time, toJSON honoured.
  again.modelTopology.node[2].input = { toJSON: () => ['x', 'w'] };
  for (let i = 0; i < 3; i++) assert.deepEqual((await run(again)).y, [[2, 6, 12]]);
  again.modelTopology.node[2].input = { toJSON: () => ['w', 'w'] };
  assert.deepEqual((await run(again)).y, [2, 8, 18]);
  // Malformed attrs are still reported, on op nodes and on Consts that are not weights.
  const bad = JSON.parse(tinyModelJson);
  bad.modelTopology.node[2].attr.T = { type: 'DT_NOPE' };
  await rejectsCode(ctx.loadGraphModel({ modelJson: bad, weights: tinyWeights }), 'InvalidArgument', /DT_NOPE/);
  const badConst = JSON.parse(tinyModelJson);
  badConst.weightsManifest[0].weights = [];
  badConst.modelTopology.node[1].attr.value = { tensor: { dtype: 'DT_FLOAT', tensorShape: {}, tensorContent: '!!' } };
  await rejectsCode(ctx.loadGraphModel({ modelJson: badConst, weights: new Uint8Array(0) }), 'InvalidArgument', /base64/);
  assert.equal(ctx.memory().numResources, 0);
  ctx.dispose();
});

test('input and output names that JSON must escape come through intact', async () => {
  const ctx = new EagerContext();
  const obj = JSON.parse(tinyModelJson);
  const weird = 'x "q" \\ \n\u0001 é \u2028 😀';
  obj.signature.inputs = { [weird]: obj.signature.inputs.x };
  const model = await ctx.loadGraphModel({ modelJson: obj, weights: tinyWeights });
  assert.deepEqual(model.inputs, [{ name: weird, tensorName: 'x:0', dtype: 'float32', shape: [-1, 3] }]);
  const x = ctx.tensor([[1, 1, 1]]);
  for (const feed of [x, { [weird]: x }]) {
    const out = model.predict(feed);
    assert.deepEqual(out.y.arraySync(), [[2, 6, 12]]);
    out.y.dispose();
    out.sum.dispose();
  }
  model.dispose();
  ctx.dispose();
});
