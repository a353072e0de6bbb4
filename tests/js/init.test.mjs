// init(): the first call chooses the build for the page (one wasm instance holds every tensor and
// model); later calls resolve when they ask for the same or less and reject with
// FailedPrecondition when they ask for another build. Each case runs in a fresh Node process.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { root } from './helpers.mjs';

function run(program) {
  const entry = JSON.stringify(pathToFileURL(join(root, 'dist', 'index.js')).href);
  const src = `const api = await import(${entry});
const outcome = (p) => p.then(() => 'resolved', (e) => e.name + ':' + e.code + ':' + e.message);
${program}`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', src], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

test('init() after the graph build: the layers build is refused, not silently ignored', () => {
  const r = run(`
const first = await outcome(api.init());
const again = await outcome(api.init());
const layers = await outcome(api.init({ layers: true }));
let load;
try { await new api.EagerContext().loadLayersModel({ modelJson: '{}' }); } catch (e) { load = e.code; }
console.log(JSON.stringify({ first, again, layers, load, features: api.wasmFeatures() }));
`);
  assert.equal(r.first, 'resolved');
  assert.equal(r.again, 'resolved');
  assert.match(r.layers, /^EagerError:FailedPrecondition:.*graph-model build.*layers format.*init\(\{ layers: true \}\)/);
  assert.equal(r.features.layers, false);
  assert.equal(r.load, 'FailedPrecondition');
});

test('init() concurrent calls: the second waits for the first and is checked against it', () => {
  const r = run(`
const [a, b, c] = await Promise.all([outcome(api.init({ layers: true })), outcome(api.init()), outcome(api.init({ layers: true }))]);
console.log(JSON.stringify({ a, b, c, layers: api.wasmFeatures().layers }));
`);
  assert.deepEqual([r.a, r.b, r.c], ['resolved', 'resolved', 'resolved']);
  assert.equal(r.layers, true);
});

test('init() after a relaxed-SIMD build refuses relaxedSimd: false; another module is refused', () => {
  const r = run(`
const first = await outcome(api.init());
const relaxed = api.wasmFeatures().relaxedSimd;
const plain = await outcome(api.init({ relaxedSimd: false }));
const other = await outcome(api.init(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])));
const atInit = await outcome(api.init({ coldCode: 'at-init' }));
console.log(JSON.stringify({ first, relaxed, plain, other, atInit, features: api.wasmFeatures() }));
`);
  assert.equal(r.first, 'resolved');
  if (r.relaxed) assert.match(r.plain, /^EagerError:FailedPrecondition:.*relaxed SIMD/);
  else assert.equal(r.plain, 'resolved');
  assert.match(r.other, /^EagerError:FailedPrecondition:.*another module/);
  // A later call may still ask for the on-demand part now.
  assert.equal(r.atInit, 'resolved');
  assert.equal(r.features.coldCodeLoaded, r.features.split);
});
