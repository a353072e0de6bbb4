// Hostile values at the JS boundary (issue 14): the cases of hostile-cases.mjs (also run in
// Chromium by scripts/chromium-check.mjs), a short fuzz loop over random attr/option/shape values,
// and memory figures past 2 GiB.
import assert from 'node:assert/strict';
import { freemem } from 'node:os';
import { test } from 'node:test';
import { api } from './helpers.mjs';
import { hostileCases, runHostileCases } from './hostile-cases.mjs';
import { fuzzBoundary } from './hostile-fuzz.mjs';

for (const c of hostileCases(api)) {
  const pattern = new RegExp(`^${c.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  test(`hostile: ${c.name}`, { skip: c.skip || false }, async () => {
    const [r] = await runHostileCases(api, { only: pattern });
    assert.ok(r.ok, r.error);
  });
}

test('hostile: a fuzz loop over random attrs, options, shapes and values (a few seconds)', () => {
  const ms = Number(process.env.HOSTILE_FUZZ_MS ?? 3000);
  const r = fuzzBoundary(api, { ms, seed: Number(process.env.HOSTILE_FUZZ_SEED ?? 1) });
  assert.ok(r.calls > 100, `only ${r.calls} calls`);
  assert.deepEqual(r.failures, [], r.failures.join('\n'));
  console.log(`fuzz: ${r.calls} calls, ${r.errors} EagerErrors (codes ${JSON.stringify(r.codes)}), seed ${r.seed}`);
});

// Three 0.8 GiB tensors (made by Fill inside wasm: no JS copies): heapBytes past 2 GiB (it read 0
// before the fix) and a peak that follows.
test('memory figures past 2 GiB', { skip: freemem() < 3.5 * 2 ** 30 && 'needs 3.5 GiB of free memory' }, () => {
  const ctx = new api.EagerContext();
  const n = Math.floor((0.8 * 2 ** 30) / 4);
  const base = ctx.memory().heapBytes;
  const dims = ctx.tensor(new Int32Array([n]));
  const zero = ctx.tensor(0);
  const ts = [];
  try {
    for (let i = 0; i < 3; i++) ts.push(ctx.execute('Fill', [dims, zero])[0]);
    const m = ctx.memory();
    assert.ok(m.heapBytes >= base + 3 * n * 4, `heapBytes ${m.heapBytes}`);
    assert.ok(m.heapPeakBytes >= m.heapBytes, `heapPeakBytes ${m.heapPeakBytes}`);
    assert.ok(m.tensorBytes >= 3 * n * 4, `tensorBytes ${m.tensorBytes}`);
    assert.ok(m.wasmMemoryBytes > 2 ** 31, `wasmMemoryBytes ${m.wasmMemoryBytes}`);
  } finally {
    for (const t of ts) t.dispose();
    dims.dispose();
    zero.dispose();
    ctx.dispose();
  }
});
