// The threaded build (Node picks it by default): the thread count init() reports, and every model
// fixture's outputs and the parallel kernels' op results equal, bit for bit, those of the
// single-threaded build (computed in a child process: one build per process).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { api, root } from './helpers.mjs';
import { threadCases } from './threads-cases.mjs';

const cores = Math.min(8, availableParallelism());

test('init() in Node loads the threaded build with one thread per core (at most 8)', (t) => {
  if (process.env.EAGER_WASM_TEST_THREADS) return t.skip('EAGER_WASM_TEST_THREADS set');
  const f = api.wasmFeatures();
  assert.equal(f.threads, cores);
  assert.equal(f.split, false, 'the threaded build is not split');
});

test('every model fixture and parallel kernel: threaded outputs equal single-threaded ones bit for bit', async (t) => {
  if (api.wasmFeatures().threads < 2) return t.skip('single-threaded build loaded');
  const single = JSON.parse(
    execFileSync(process.execPath, [`${root}/tests/js/threads-cases.mjs`, '--threads', '1'], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    }),
  );
  const threaded = await threadCases(api);
  assert.deepEqual(Object.keys(threaded), Object.keys(single));
  assert.ok(Object.keys(threaded).length > 20, 'cases ran');
  for (const [name, outputs] of Object.entries(threaded)) {
    assert.deepEqual(outputs, single[name], `${name}: threads changed the result`);
  }
});

test('a disposed model returns the heap to the byte with work on other threads', async (t) => {
  if (api.wasmFeatures().threads < 2) return t.skip('single-threaded build loaded');
  const probe = new api.EagerContext();
  const ctx = new api.EagerContext();
  await threadCases(api, ctx, { only: 'models' }); // kernels cached, weights packed once
  ctx.clearCache();
  const before = probe.memory().heapBytes;
  for (let i = 0; i < 3; i++) {
    await threadCases(api, ctx, { only: 'models' });
    ctx.clearCache();
    assert.equal(probe.memory().heapBytes, before, `round ${i}`);
  }
  ctx.dispose();
  probe.dispose();
});
