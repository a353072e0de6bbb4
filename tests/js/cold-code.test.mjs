// The split build (scripts/cold-split, js/cold-code.js): init() loads the primary module only; the
// first call of code outside it (a rare op, a rare error path) loads the cold module on the same
// memory, transparently. Each case runs in a fresh Node process: a process loads the cold module
// once. Which code is primary comes from the committed profile (scripts/cold-split/hot.txt): the
// benchmark's workload, so MatMul is primary and Atan2, Cumprod and the models of misc_ops are not.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { root } from './helpers.mjs';

function run(program, { dist = join(root, 'dist'), nodeFlags = [] } = {}) {
  const entry = JSON.stringify(pathToFileURL(join(dist, 'index.js')).href);
  // The split build is the single-threaded one: every init() here asks for one thread.
  const src = `const real = await import(${entry});
const api = { ...real, init: (o) => {
  let x = o;
  try { if (o === undefined || Object.getPrototypeOf(o) === Object.prototype) x = { threads: 1, ...o }; } catch {}
  return real.init(x);
} };
${program}`;
  const out = execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', src], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

const rareOps = (initArg) => `
await api.init(${initArg});
const ctx = new api.EagerContext();
const a = ctx.tensor([[1, -2], [3, 0.5]]);
const [m] = ctx.execute('MatMul', [a, a]);
const afterHot = api.wasmFeatures().coldCodeLoaded;
const heap = () => (ctx.clearCache(), ctx.memory().heapBytes);
const rare = () => {
  const y = ctx.tensor([1, -1, -2, 0.5]);
  const x = ctx.tensor([0.5, 2, -3, -0.25]);
  const axis = ctx.tensor(new Int32Array([0]), []);
  const [t] = ctx.execute('Atan2', [y, x]);
  const [p] = ctx.execute('Cumprod', [y, axis], { exclusive: true });
  const out = { atan2: Array.from(t.dataSync()), cumprod: Array.from(p.dataSync()) };
  for (const z of [t, p, x, y, axis]) z.dispose();
  return out;
};
const heaps = [heap()];
const first = rare();
const afterRare = api.wasmFeatures().coldCodeLoaded;
heaps.push(heap());
rare();
heaps.push(heap());
console.log(JSON.stringify({ afterHot, afterRare, ...first, matmul: Array.from(m.dataSync()), heaps }));
`;

test('a hot op runs on the primary alone; a rare op loads the cold module, with correct results', () => {
  const r = run(rareOps(''));
  assert.equal(r.afterHot, false, 'MatMul needed the cold module');
  assert.equal(r.afterRare, true);
  const want = [[1, 0.5], [-1, 2], [-2, -3], [0.5, -0.25]].map(([y, x]) => Math.atan2(y, x));
  r.atan2.forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-6, `atan2[${i}] ${v} vs ${want[i]}`));
  assert.deepEqual(r.cumprod, [1, 1, -1, 2]);
  assert.deepEqual(r.matmul, [-5, -3, 4.5, -5.75]);
  // Loading the cold module allocates nothing on the heap: the figures are those of a process
  // that loaded it at init (the first run of an op adds its kernel-cache records in both).
  const eager = run(rareOps("{ coldCode: 'at-init' }"));
  assert.equal(eager.afterHot, true);
  assert.deepEqual(r.heaps, eager.heaps);
  assert.equal(r.heaps[2], r.heaps[1], 'a second run of the rare ops left something behind');
});

test("init({ coldCode: 'at-init' }) loads both modules before it resolves", () => {
  const r = run(`
await api.init({ coldCode: 'at-init' });
console.log(JSON.stringify(api.wasmFeatures()));
`);
  assert.equal(r.split, true);
  assert.equal(r.coldCodeLoaded, true);
});

test('loadGraphModel fetches the cold module ahead for a model with ops outside the profile, and runs it as TF does', () => {
  const dir = join(root, 'tests/fixtures/models/misc_ops');
  const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
  const r = run(`
await api.init();
const ctx = new api.EagerContext();
const model = await ctx.loadGraphModel(${JSON.stringify(pathToFileURL(join(dir, 'model.json')).href)});
const loadedAtLoad = api.wasmFeatures().coldCodeLoaded;
const ref = ${JSON.stringify(ref.inputs)};
const inputs = Object.fromEntries(
  Object.entries(ref).map(([k, v]) => [k, ctx.tensor(v.dtype === 'int32' ? new Int32Array(v.data) : new Float32Array(v.data), v.shape)]),
);
const keys = model.outputs.map((o) => o.name);
const list = model.execute(inputs, keys);
console.log(JSON.stringify({ loadedAtLoad, keys, out: list.map((t) => Array.from(t.dataSync())) }));
`);
  assert.equal(r.loadedAtLoad, true);
  const want = r.keys.map((k) => ref.outputs[k].data);
  assert.equal(r.out.length, want.length);
  r.out.forEach((o, k) => o.forEach((v, i) => assert.ok(Math.abs(v - want[k][i]) <= 1e-4 * (1 + Math.abs(want[k][i])), `output ${k}[${i}]: ${v} vs ${want[k][i]}`)));
});

test("a cold module that cannot be loaded is EagerError('Unavailable'), not a crash of the process", () => {
  const dist = mkdtempSync(join(tmpdir(), 'eager-wasm-nocold-'));
  try {
    cpSync(join(root, 'dist'), dist, { recursive: true });
    rmSync(join(dist, 'eager_wasm_cold.wasm'));
    const r = run(
      `
await api.init({ relaxedSimd: false });
const ctx = new api.EagerContext();
const a = ctx.tensor([1, 2]);
const [b] = ctx.execute('AddV2', [a, a]);
const hot = Array.from(b.dataSync());
let error = null;
try { ctx.execute('Atan2', [a, a]); } catch (e) { error = { name: e.name, code: e.code, message: e.message }; }
console.log(JSON.stringify({ hot, error }));
`,
      { dist },
    );
    assert.deepEqual(r.hot, [2, 4]);
    assert.equal(r.error?.name, 'EagerError');
    assert.equal(r.error.code, 'Unavailable');
    assert.match(r.error.message, /on-demand code/);
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
});

test('the sample models of the benchmark load, predict and dispose on the primary alone (hot.txt is not stale)', () => {
  const models = ['mlp', 'mobilenet'].map((name) => {
    const dir = join(root, 'tests/fixtures/models', name);
    const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
    return { url: pathToFileURL(join(dir, 'model.json')).href, x: ref.inputs[Object.keys(ref.inputs)[0]] };
  });
  // Node 20 validates relaxed-SIMD code only with this flag: both builds are checked.
  for (const relaxed of [false, true]) {
    const nodeFlags = relaxed ? ['--experimental-wasm-relaxed-simd'] : [];
    const r = run(
      `
await api.init({ relaxedSimd: ${relaxed} });
const ctx = new api.EagerContext();
for (const m of ${JSON.stringify(models)}) {
  const model = await ctx.loadGraphModel(m.url);
  const x = ctx.tensor(new Float32Array(m.x.data), m.x.shape);
  const y = model.predict(x);
  await y.data();
  y.dispose(); x.dispose(); model.dispose();
}
ctx.dispose();
console.log(JSON.stringify(api.wasmFeatures()));
`,
      { nodeFlags },
    );
    assert.equal(r.relaxedSimd, relaxed);
    assert.equal(r.coldCodeLoaded, false, 'the cold module was loaded: regenerate hot.txt (npm run profile:hot)');
  }
});

test("init() refuses a coldCode other than 'on-demand' or 'at-init', and a throwing options getter, with InvalidArgument", () => {
  const r = run(`
const codes = [];
for (const opts of [{ coldCode: 'later' }, { coldCode: 1 }, { get coldCode() { throw new Error('boom'); } }]) {
  await api.init(opts).then(() => codes.push('resolved'), (e) => codes.push(e.name + ':' + e.code));
}
await api.init({ coldCode: 'on-demand' });
console.log(JSON.stringify({ codes, features: api.wasmFeatures() }));
`);
  assert.deepEqual(r.codes, Array(3).fill('EagerError:InvalidArgument'));
  assert.equal(r.features.coldCodeLoaded, false);
});

test("the layers build runs the demo's Keras models on its primary alone, as Keras does (hot-layers.txt is not stale)", () => {
  const models = ['teachable', 'lstm_text'].map((name) => {
    const dir = join(root, 'tests/fixtures/layers', name);
    const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
    return { url: pathToFileURL(join(dir, 'model.json')).href, x: Object.values(ref.inputs)[0], y: Object.values(ref.outputs)[0] };
  });
  const r = run(`
await api.init({ layers: true });
const ctx = new api.EagerContext();
const errors = [];
for (const m of ${JSON.stringify(models)}) {
  const model = await ctx.loadLayersModel(m.url);
  const x = ctx.tensor(new Float32Array(m.x.data), m.x.shape);
  const y = model.predict(x);
  const got = y.dataSync();
  errors.push(Math.max(...m.y.data.map((w, i) => Math.abs(w - got[i]) / (1 + Math.abs(w)))));
  y.dispose(); x.dispose(); model.dispose();
}
ctx.dispose();
console.log(JSON.stringify({ errors, features: api.wasmFeatures() }));
`);
  assert.equal(r.features.layers, true);
  for (const e of r.errors) assert.ok(e <= 1e-4, `relative error ${e}`);
  assert.equal(r.features.coldCodeLoaded, false, 'the cold module was loaded: regenerate the hot lists (npm run profile:hot)');
});
