// JS recursion that calls eager-wasm at its deepest point: every call at every depth near the stack
// limit either works or fails (RangeError in JS, or EagerError ResourceExhausted from the stack
// guard) without starting wasm, so no Rust call is ever abandoned half-way by a stack overflow and
// the instance keeps working for every context. Each case runs in its own process: without the
// guard such a run killed the instance ("unreachable", or a context "busy" for good).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { root } from './helpers.mjs';

function run(call) {
  const entry = JSON.stringify(pathToFileURL(join(root, 'dist', 'index.js')).href);
  const fixture = JSON.stringify(join(root, 'tests/fixtures/models/cnn/model.json'));
  const src = `
const api = await import(${entry});
await api.init();
const ctx = new api.EagerContext();
const a = ctx.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
const b = ctx.tensor(new Float32Array([4, 3, 2, 1]), [2, 2]);
const img = ctx.tensor(new Float32Array(48).fill(1), [1, 4, 4, 3]);
const filt = ctx.tensor(new Float32Array(216).fill(0.5), [3, 3, 3, 8]);
const model = await ctx.loadGraphModel(${fixture});
const mshape = model.inputs[0].shape.map((d) => (d < 0 ? 1 : d));
const mx = ctx.tensor(new Float32Array(mshape.reduce((x, y) => x * y, 1)), mshape);
const target = new Float32Array(4);
const pool = [];
const errors = new Set();
const made = [];
const call = () => { const r = (${call}); if (r && typeof r.dispose === 'function') made.push(r); };
let calls = 0;
function rec() {
  try {
    rec();
  } catch (e) {
    calls++;
    errors.add(e instanceof api.EagerError ? 'EagerError:' + e.code : e.constructor.name + (/stack/i.test(e.message) ? ':stack' : ':' + e.message));
    if (pool.length === 0) for (let i = 0; i < 64; i++) pool.push(ctx.tensor([i]));
    call();
  }
}
for (let round = 0; round < 5; round++) {
  try { rec(); } catch (e) { errors.add(e instanceof api.EagerError ? 'EagerError:' + e.code : e.constructor.name); }
}
for (const t of made) t.dispose();
// The instance and the context still work, and so does a new context.
const sum = Array.from(ctx.ops.add(a, b).dataSync());
const m = ctx.memory();
const ctx2 = new api.EagerContext();
const ok2 = Array.from(ctx2.tensor([5]).dataSync());
ctx2.dispose();
const y = model.predict(mx);
const predicted = y.shape;
console.log(JSON.stringify({ calls, errors: [...errors], sum, numTensors: m.numTensors, ok2, predicted }));
`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', src], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

const calls = {
  'dataSync': 'a.dataSync()',
  'readInto': 'a.readInto(target)',
  'ops.add': 'ctx.ops.add(a, b)',
  'ops.sum': 'ctx.ops.sum(a)',
  'execute': "ctx.execute('AddV2', [a, b])[0]",
  'conv2d': "ctx.ops.conv2d(img, filt, 1, 'same')",
  'tensor': 'ctx.tensor([1, 2, 3])',
  'dispose': 'pool.pop().dispose()',
  'memory': 'ctx.memory()',
  'tidy': 'ctx.tidy(() => ctx.ops.mul(a, b))',
  'predict': 'model.predict(mx)',
};

for (const [name, call] of Object.entries(calls)) {
  test(`stack overflow around ${name}: every call works or fails cleanly; the instance survives`, () => {
    const r = run(call);
    assert.ok(r.calls > 5, `the recursion reached the catch (${r.calls} calls)`);
    // The engine's own stack-overflow errors (a RangeError, or a SyntaxError from a regular
    // expression compiled at the limit) come from JS frames, before any wasm ran.
    const allowed = ['RangeError:stack', 'SyntaxError:stack', 'EagerError:ResourceExhausted'];
    for (const e of r.errors) assert.ok(allowed.includes(e), `unexpected failure ${e}`);
    assert.deepEqual(r.sum, [5, 5, 5, 5]);
    assert.deepEqual(r.ok2, [5]);
    assert.equal(r.predicted.length, 2);
  });
}
