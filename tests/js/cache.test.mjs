import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, throwsCode } from './helpers.mjs';

const { EagerContext } = api;
// TF's anonymous shared_name sentinel (ResourceHandle::ANONYMOUS_NAME).
const ANONYMOUS = 'cd2c89b7-88b7-44c8-ad83-06c2a9158347';

test('hits and misses are counted per op', () => {
  const ctx = new EagerContext();
  const a = ctx.tensor([1, 2]);
  const i = ctx.tensor([1, 2], [2], 'int32');
  ctx.execute('Neg', [a]);
  let s = ctx.cacheStats();
  assert.equal(s.misses, 1);
  assert.equal(s.hits, 0);
  assert.equal(s.entries, 1);
  ctx.execute('Neg', [a]);
  ctx.execute('Neg', [ctx.tensor([5, 6, 7])]); // shapes are not part of the key
  s = ctx.cacheStats();
  assert.equal(s.hits, 2);
  assert.equal(s.misses, 1);
  ctx.execute('Neg', [i]); // dtype is (T)
  s = ctx.cacheStats();
  assert.equal(s.misses, 2);
  assert.equal(s.entries, 2);
  assert.equal(s.byOp.Neg.hits, 2);
  assert.equal(s.byOp.Neg.misses, 2);
  assert.equal(s.byOp.Neg.entries, 2);
  assert.equal(s.byOp.Neg.distinctKeys, 2);
  assert.ok(s.bytes > 0);
  assert.deepEqual(s.warnings, []);
  const m = ctx.memory();
  assert.equal(m.cacheEntries, 2);
  assert.equal(m.cacheBytes, s.bytes);
  ctx.clearCache();
  s = ctx.cacheStats();
  assert.equal(s.entries, 0);
  assert.equal(s.bytes, 0);
  assert.equal(s.hits, 2, 'clearCache keeps the counters');
  ctx.resetCache();
  assert.equal(ctx.cacheStats().hits, 0);
  ctx.dispose();
});

test('maxEntries evicts (LRU), maxBytes bounds bytes; setCacheOptions applies at once', () => {
  const ctx = new EagerContext({ cache: { maxEntries: 2 } });
  for (const dtype of ['float32', 'int32', 'int64']) ctx.execute('Neg', [ctx.tensor([1], [1], dtype)]);
  let s = ctx.cacheStats();
  assert.equal(s.entries, 2);
  assert.equal(s.evictions, 1);
  assert.equal(s.byOp.Neg.evictions, 1);
  assert.equal(ctx.cacheOptions().maxEntries, 2);
  ctx.setCacheOptions({ maxEntries: 1 });
  s = ctx.cacheStats();
  assert.equal(s.entries, 1);
  assert.equal(s.evictions, 2);
  ctx.setCacheOptions({ maxEntries: Infinity, maxBytes: 0 });
  assert.equal(ctx.cacheStats().entries, 0);
  assert.equal(ctx.cacheOptions().maxEntries, Infinity);
  ctx.setCacheOptions({ maxBytes: null });
  ctx.execute('Neg', [ctx.tensor([1])]);
  assert.equal(ctx.cacheStats().entries, 1);
  ctx.dispose();
});

test('exclude bypasses the cache', () => {
  const ctx = new EagerContext({ cache: { exclude: ['Neg'] } });
  const a = ctx.tensor([1]);
  for (let i = 0; i < 5; i++) ctx.execute('Neg', [a]);
  const s = ctx.cacheStats();
  assert.equal(s.entries, 0);
  assert.equal(s.bypassed, 5);
  assert.equal(s.byOp.Neg.bypassed, 5);
  assert.ok(ctx.cacheOptions().exclude.includes('Neg'));
  ctx.setCacheOptions({ exclude: [] });
  ctx.execute('Neg', [a]);
  assert.equal(ctx.cacheStats().entries, 1);
  ctx.dispose();
});

test('bad cache options are InvalidArgument', () => {
  throwsCode(() => new EagerContext({ cache: { maxEntries: -1 } }), 'InvalidArgument', /maxEntries/);
  throwsCode(() => new EagerContext({ cache: { maxBytes: 'big' } }), 'InvalidArgument', /maxBytes/);
  throwsCode(() => new EagerContext({ cache: { exclude: ['NotAnOp'] } }), 'InvalidArgument', /NotAnOp/);
  throwsCode(() => new EagerContext({ cache: { maxEntires: 3 } }), 'InvalidArgument', /maxEntires/);
  throwsCode(() => new EagerContext({ resourceNames: 'random' }), 'InvalidArgument', /resourceNames/);
  throwsCode(() => new EagerContext(5), 'InvalidArgument');
  const ctx = new EagerContext();
  throwsCode(() => ctx.setCacheOptions({ maxEntries: 1.5 }), 'InvalidArgument');
  ctx.dispose();
});

/** Restores `n` variables the way a model load does: VarHandleOp, AssignVariableOp, done. */
function restoreVariables(ctx, n, unique) {
  ctx.tidy(() => {
    for (let i = 0; i < n; i++) {
      const sharedName = unique ? `dense/kernel_${Math.random()}` : ANONYMOUS;
      const [h] = ctx.execute('VarHandleOp', [], { dtype: 'float32', shape: [4], shared_name: sharedName });
      ctx.execute('AssignVariableOp', [h, ctx.tensor(new Float32Array(4), [4])]);
      ctx.execute('DestroyResourceOp', [h]);
    }
  });
}

test('unique shared_names grow the cache with every VarHandleOp; anonymous stays flat', () => {
  const unique = new EagerContext({ resourceNames: 'unique' });
  const anon = new EagerContext({ resourceNames: 'anonymous' });
  const growth = { unique: [], anon: [] };
  for (let round = 0; round < 3; round++) {
    restoreVariables(unique, 50, true);
    restoreVariables(anon, 50, false);
    growth.unique.push(unique.cacheStats().entries);
    growth.anon.push(anon.cacheStats().entries);
  }
  assert.deepEqual(growth.anon, [3, 3, 3]);
  assert.ok(growth.unique[0] >= 50 && growth.unique[1] >= growth.unique[0] + 50 && growth.unique[2] >= growth.unique[1] + 50, JSON.stringify(growth));
  const s = unique.cacheStats();
  assert.equal(s.byOp.VarHandleOp.entries, 150);
  assert.equal(s.byOp.VarHandleOp.hits, 0);
  assert.equal(s.byOp.VarHandleOp.distinctKeys, 150);
  assert.ok(s.warnings.some((w) => w.op === 'VarHandleOp' && /150 distinct keys/.test(w.message)), JSON.stringify(s.warnings));
  assert.deepEqual(anon.cacheStats().warnings, []);
  assert.equal(anon.cacheStats().byOp.VarHandleOp.hits, 149);
  assert.equal(anon.memory().numResources, 0);
  unique.dispose();
  anon.dispose();
});

test('byOp[op].attrs says which attr varies, with examples; the warning names it and its fix', () => {
  const unique = new EagerContext({ resourceNames: 'unique' });
  const anon = new EagerContext({ resourceNames: 'anonymous' });
  restoreVariables(unique, 150, true);
  restoreVariables(anon, 150, false);
  const s = unique.cacheStats();
  const vh = s.byOp.VarHandleOp;
  assert.deepEqual(Object.keys(vh.attrs), ['container', 'shared_name', 'debug_name', 'dtype', 'shape', 'allowed_devices']);
  const name = vh.attrs.shared_name;
  assert.equal(name.variesPerCall, true);
  assert.equal(name.distinctExact, false, 'past 128 values: estimated');
  assert.ok(Math.abs(name.distinctValues - 150) <= 15 && name.distinctValues <= vh.distinctKeys, JSON.stringify(name));
  assert.equal(name.examples.length, 2);
  for (const e of name.examples) assert.match(e, /^"dense\/kernel_0\.\d/);
  for (const a of ['container', 'debug_name', 'dtype', 'shape', 'allowed_devices']) {
    assert.equal(vh.attrs[a].distinctValues, 1, a);
    assert.equal(vh.attrs[a].distinctExact, true, a);
    assert.equal(vh.attrs[a].variesPerCall, false, a);
    assert.equal(vh.attrs[a].examples.length, 1, a);
  }
  assert.deepEqual(vh.attrs.dtype.examples, ['float32']);
  assert.deepEqual(vh.attrs.shape.examples, ['shape [4]']);
  assert.ok(vh.attrBytes > 0, 'the tracking is counted');
  assert.equal(s.attrBytes, Object.values(s.byOp).reduce((n, o) => n + o.attrBytes, 0));
  const w = s.warnings.find((x) => x.op === 'VarHandleOp');
  assert.deepEqual(w.attrs, ['shared_name']);
  assert.match(w.message, /New on almost every call: shared_name \(~\d+ values, e\.g\. "dense\/kernel_0\./);
  assert.match(w.message, /Constant: container, debug_name, dtype, shape and allowed_devices\./);
  assert.match(w.message, /shared_name names a resource, so give resources anonymous names/);
  // Anonymous names: every attr of every op constant, no warning.
  const a = anon.cacheStats();
  for (const [op, st] of Object.entries(a.byOp)) {
    for (const [attr, v] of Object.entries(st.attrs)) {
      assert.equal(v.distinctValues, 1, `${op}.${attr}`);
      assert.equal(v.variesPerCall, false, `${op}.${attr}`);
    }
  }
  assert.deepEqual(a.warnings, []);
  unique.dispose();
  anon.dispose();
});
