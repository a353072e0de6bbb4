// Shared helpers for the node:test suites. They import the *built* package (dist/), so run
// `npm run build` first.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as api from '../../dist/index.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const fixtures = join(root, 'tests/fixtures/models');
export { api };

// EAGER_WASM_TEST_THREADS=1 runs the suites on the single-threaded builds (Node's default is the
// threaded build, with as many threads as cores).
const testThreads = process.env.EAGER_WASM_TEST_THREADS;
await api.init(testThreads ? { threads: Number(testThreads) } : undefined);
export const ops = new Set(api.registeredOps());

/** `t.skip` reason when some op is not (yet) registered, else null. */
export function missingOps(...names) {
  const missing = names.filter((n) => !ops.has(n));
  return missing.length ? `ops not registered yet: ${missing.join(', ')}` : null;
}

/** Asserts `fn` throws an EagerError with `code` (and a message matching `re`, if given). */
/**
 * Collects garbage and lets the tensor finalizers run (`node --expose-gc`), so that tensors another
 * test dropped without disposing are not released in the middle of a heap comparison.
 */
export async function settleGarbage() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 0));
  }
}

export function throwsCode(fn, code, re) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof api.EagerError, `expected EagerError, got ${e?.constructor?.name}: ${e?.message}`);
    assert.ok(e instanceof Error);
    assert.equal(e.code, code, e.message);
    if (re) assert.match(e.message, re);
    return true;
  });
}

export async function rejectsCode(p, code, re) {
  if (code instanceof RegExp) return assert.rejects(p, (e) => e instanceof api.EagerError);
  await assert.rejects(p, (e) => {
    assert.ok(e instanceof api.EagerError, `expected EagerError, got ${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.code, code, e.message);
    if (re) assert.match(e.message, re);
    return true;
  });
}

export function closeTo(actual, expected, abs = 1e-5, rel = 1e-4) {
  assert.equal(actual.length, expected.length, 'length');
  for (let i = 0; i < expected.length; i++) {
    const tol = abs + rel * Math.abs(expected[i]);
    assert.ok(Math.abs(actual[i] - expected[i]) <= tol, `element ${i}: ${actual[i]} vs ${expected[i]}`);
  }
}

export function loadFixture(name) {
  const dir = join(fixtures, name);
  const modelJson = readFileSync(join(dir, 'model.json'), 'utf8');
  const manifest = JSON.parse(modelJson).weightsManifest ?? [];
  const shards = manifest.flatMap((g) => g.paths).map((p) => readFileSync(join(dir, p)));
  const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
  return { dir, modelJson, shards, reference };
}

/** Ops a fixture's graph uses that are not registered (so its tests can be skipped with a reason). */
export function fixtureMissingOps(name) {
  const { modelJson } = loadFixture(name);
  const used = new Set(JSON.parse(modelJson).modelTopology.node.map((n) => n.op));
  for (const skip of ['Placeholder', 'Const', 'NoOp']) used.delete(skip);
  const missing = [...used].filter((o) => !ops.has(o));
  return missing.length ? `model ops not registered yet: ${missing.join(', ')}` : null;
}
