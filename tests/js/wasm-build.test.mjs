// init() picks between the six .wasm builds (graph or layers, plain or relaxed SIMD, and the threaded
// graph builds, which Node gets by default): each case runs in a fresh Node process, since init()
// loads one module per process. Node 20 validates relaxed-SIMD code only with
// --experimental-wasm-relaxed-simd, which makes both choices testable here.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { root } from './helpers.mjs';

const entry = pathToFileURL(join(root, 'dist/index.js')).href;

/** Runs a 64x96 * 96x40 MatMul (deep enough for the FMA micro-kernel) in a fresh process. */
function runIn(nodeFlags, initArg) {
  const program = `
const api = await import(${JSON.stringify(entry)});
await api.init(${initArg});
const ctx = new api.EagerContext();
let layersLoad = 'ok';
await ctx.loadLayersModel({ modelJson: '{}' }).catch((e) => { layersLoad = e.code; });
const fill = (n, s) => Float32Array.from({ length: n }, (_, i) => (((i * 7919 + s) % 2003) / 1001.5) - 1);
const a = ctx.tensor(fill(64 * 96, 1), [64, 96]);
const b = ctx.tensor(fill(96 * 40, 2), [96, 40]);
const [c] = ctx.execute('MatMul', [a, b]);
const { coldCodeLoaded, ...features } = api.wasmFeatures();
console.log(JSON.stringify({ features, coldCodeLoaded, layersLoad, c: Array.from(c.dataSync()) }));
`;
  const out = execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', program], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

function naiveMatMul() {
  const fill = (n, s) => Float64Array.from({ length: n }, (_, i) => Math.fround((((i * 7919 + s) % 2003) / 1001.5) - 1));
  const a = fill(64 * 96, 1);
  const b = fill(96 * 40, 2);
  const c = new Float64Array(64 * 40);
  for (let i = 0; i < 64; i++) for (let j = 0; j < 40; j++) {
    let s = 0;
    for (let p = 0; p < 96; p++) s += a[i * 96 + p] * b[p * 40 + j];
    c[i * 40 + j] = s;
  }
  return c;
}

function assertClose(got, want) {
  assert.equal(got.length, want.length);
  for (let i = 0; i < got.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= 1e-4 * (1 + Math.abs(want[i])), `element ${i}: ${got[i]} vs ${want[i]}`);
  }
}

const RELAXED = ['--experimental-wasm-relaxed-simd'];
/** init()'s default thread count in Node: the cores, at most 8 (1: the single-threaded builds). */
const CORES = Math.min(8, availableParallelism());
const single = (relaxedSimd, layers = false) => ({ simd: true, relaxedSimd, layers, threads: 1, split: true });
const byDefault = (relaxedSimd) => (CORES > 1 ? { simd: true, relaxedSimd, layers: false, threads: CORES, split: false } : single(relaxedSimd));

test("Node's default: the threaded build (not split), plain SIMD128 where the engine lacks relaxed SIMD", () => {
  const r = runIn([], '');
  assert.deepEqual(r.features, byDefault(false));
  assertClose(r.c, naiveMatMul());
});

test('the relaxed-SIMD threaded build where the engine validates it, with the same results', () => {
  const r = runIn(RELAXED, '');
  assert.deepEqual(r.features, byDefault(true));
  assertClose(r.c, naiveMatMul());
});

test('{ threads: 1 } loads the split single-threaded builds, plain and relaxed', () => {
  for (const [flags, relaxedSimd] of [[[], false], [RELAXED, true]]) {
    const r = runIn(flags, '{ threads: 1 }');
    assert.deepEqual(r.features, single(relaxedSimd));
    assertClose(r.c, naiveMatMul());
  }
});

test('{ threads: 3 } runs three threads whatever the core count; { relaxedSimd: false } forces the plain build', () => {
  const r = runIn(RELAXED, '{ threads: 3, relaxedSimd: false }');
  assert.deepEqual(r.features, { simd: true, relaxedSimd: false, layers: false, threads: 3, split: false });
  assertClose(r.c, naiveMatMul());
  assert.deepEqual(runIn(RELAXED, '{ relaxedSimd: false, threads: 1 }').features, single(false));
});

test('an explicit module source is loaded as given (one thread)', () => {
  const wasm = JSON.stringify(pathToFileURL(join(root, 'dist/eager_wasm_relaxed_bg.wasm')).href);
  const r = runIn(RELAXED, `await (await import('node:fs/promises')).readFile(new URL(${wasm}))`);
  assert.deepEqual(r.features, single(true));
});

test('{ layers: true } loads the build with the layers format (single-threaded), plain and relaxed', () => {
  for (const [flags, relaxedSimd] of [[[], false], [RELAXED, true]]) {
    const r = runIn(flags, '{ layers: true }');
    assert.deepEqual(r.features, single(relaxedSimd, true));
    // past the build check: the empty model.json itself is refused
    assert.equal(r.layersLoad, 'InvalidArgument');
    assertClose(r.c, naiveMatMul());
  }
});

test('init() refuses threads it cannot have or that make no sense, naming why', () => {
  const program = (arg) => `
const api = await import(${JSON.stringify(entry)});
const r = await api.init(${arg}).then(() => 'resolved', (e) => e.code + ': ' + e.message);
console.log(JSON.stringify(r));`;
  const out = (arg) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', program(arg)], { encoding: 'utf8' }).trim().split('\n').pop());
  assert.match(out('{ layers: true, threads: 2 }'), /^FailedPrecondition: .*layers format has no threaded build/);
  for (const bad of ['0', '1.5', "'2'", '65', 'NaN']) {
    assert.match(out(`{ threads: ${bad} }`), /^InvalidArgument: init\(\): threads must be an integer from 1 to 64/, bad);
  }
});

test('the graph-model build refuses loadLayersModel before fetching anything, naming the fix', () => {
  const r = runIn([], '');
  assert.equal(r.layersLoad, 'FailedPrecondition');
});

test('the graph-model build is the smaller download', () => {
  const sizes = JSON.parse(readFileSync(join(root, 'dist/sizes.json'), 'utf8'));
  assert.ok(sizes.wasmGzipBytes < sizes.layers.wasmGzipBytes, JSON.stringify(sizes));
  assert.ok(sizes.relaxedSimd.wasmGzipBytes < sizes.layersRelaxedSimd.wasmGzipBytes, JSON.stringify(sizes));
});

test('every single-threaded build is split: init() loads the primary, the rest is on demand', () => {
  const sizes = JSON.parse(readFileSync(join(root, 'dist/sizes.json'), 'utf8'));
  for (const s of [sizes, sizes.relaxedSimd, sizes.layers, sizes.layersRelaxedSimd]) {
    assert.ok(s.coldWasmGzipBytes > 0 && s.wasmGzipBytes > 0, JSON.stringify(s));
  }
  for (const s of [sizes.threads, sizes.threadsRelaxedSimd]) {
    assert.ok(s.wasmGzipBytes > 0 && s.coldWasmGzipBytes === undefined, JSON.stringify(s));
  }
});
