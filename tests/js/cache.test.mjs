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
