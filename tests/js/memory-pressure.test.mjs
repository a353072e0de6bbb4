// Memory pressure, leaks and failures that could kill the instance. A case that fills wasm memory
// or breaks the on-demand part runs in a child Node process of its own (one instance each), with
// the package's memory capped by V8's --wasm-max-mem-pages so that filling it is quick.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { api, fixtures, root, settleGarbage } from './helpers.mjs';

function run(program, { dist = join(root, 'dist'), nodeFlags = [] } = {}) {
  const entry = JSON.stringify(pathToFileURL(join(dist, 'index.js')).href);
  const src = `const api = await import(${entry});\n${program}`;
  const out = execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', src], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

const mlp = pathToFileURL(join(fixtures, 'mlp/model.json')).href;

test('filling wasm memory with tensors is ResourceExhausted, never a trap, and everything works once they are freed', () => {
  const r = run(
    `
await api.init({ relaxedSimd: false });
const codes = {};
const note = (where, e) => {
  const k = where + ':' + (e instanceof api.EagerError ? e.code : e?.constructor?.name + ' ' + e?.message);
  codes[k] = (codes[k] ?? 0) + 1;
};
const attempt = (where, f) => { try { f(); return 'ok'; } catch (e) { note(where, e); return e.code ?? String(e); } };
const ctx = new api.EagerContext();
const kept = [];
// 2^26 floats (256 MB, the cap) down to one float, each size until it fails.
for (let n = 2 ** 26; n >= 1; n = Math.floor(n / 2)) {
  for (;;) {
    try { kept.push(ctx.tensor(new Float32Array(n).fill(1), [n])); } catch (e) { note('tensor', e); break; }
  }
}
const full = {
  context: attempt('context', () => new api.EagerContext()),
  op: attempt('op', () => ctx.execute('Relu', [kept[0]])),
  error: attempt('error', () => ctx.execute('MatMul', [kept[0], kept[0]])),
  memory: attempt('memory', () => ctx.memory()),
};
let load = 'ok';
try { await ctx.loadGraphModel(${JSON.stringify(mlp)}); } catch (e) { note('load', e); load = e.code; }
full.load = load;
for (const t of kept) t.dispose();
const after = {};
after.sameContext = attempt('same', () => {
  const [y] = ctx.execute('Relu', [ctx.tensor([-1, 2])]);
  if (y.dataSync().join() !== '0,2') throw new Error('Relu: ' + y.dataSync());
});
const ctx2 = new api.EagerContext();
after.newContext = attempt('new', () => ctx2.execute('AddV2', [ctx2.tensor([1]), ctx2.tensor([2])]));
after.errorPath = attempt('errorPath', () => ctx2.execute('MatMul', [ctx2.tensor([1, 2]), ctx2.tensor([1, 2])]));
const model = await ctx2.loadGraphModel(${JSON.stringify(mlp)});
after.model = model.outputs.length;
console.log(JSON.stringify({ codes, full, after, made: kept.length, bytes: kept.reduce((b, t) => b + 4 * t.size, 0) }));
`,
    { nodeFlags: ['--wasm-max-mem-pages=4096'] },
  );
  // The 256 MB cap filled (by some ten tensors, each size until it failed; the threaded build's
  // worker stacks take a megabyte of it).
  assert.ok(r.made >= 8 && r.bytes > 200 * 2 ** 20, `only ${r.made} tensors, ${r.bytes} bytes made`);
  for (const k of Object.keys(r.codes)) {
    assert.match(k, /:(ResourceExhausted|InvalidArgument)$/, `a failure other than a typed error: ${JSON.stringify(r.codes)}`);
  }
  assert.ok(r.codes['tensor:ResourceExhausted'] > 0, JSON.stringify(r.codes));
  assert.equal(r.full.context, 'ResourceExhausted');
  assert.equal(r.full.load, 'ResourceExhausted');
  assert.equal(r.after.sameContext, 'ok');
  assert.equal(r.after.newContext, 'ok');
  assert.equal(r.after.errorPath, 'InvalidArgument');
  assert.equal(r.after.model, 1);
});

test('a tidy that filled memory closes, and a context full of tensors disposes, with no memory left', () => {
  const r = run(
    `
await api.init({ relaxedSimd: false });
const fill = (ctx) => {
  for (let i = 0; i < 100000; i++) ctx.tensor([i]);
  for (let m = 2 ** 24; m >= 1; m = Math.floor(m / 2)) {
    for (;;) { try { ctx.tensor(new Float32Array(m), [m]); } catch { break; } }
  }
};
const ctx = new api.EagerContext();
const outcome = (f) => { try { f(); return 'ok'; } catch (e) { return e.code + ': ' + e.message; } };
const tidy = outcome(() => ctx.tidy(() => fill(ctx)));
const afterTidy = ctx.memory().numTensors;
const ctx2 = new api.EagerContext();
fill(ctx2);
const dispose = outcome(() => ctx2.dispose());
const relu = outcome(() => ctx.execute('Relu', [ctx.tensor([-1, 2])]));
console.log(JSON.stringify({ tidy, afterTidy, dispose, relu }));
`,
    { nodeFlags: ['--wasm-max-mem-pages=4096'] },
  );
  assert.deepEqual(r, { tidy: 'ok', afterTidy: 0, dispose: 'ok', relu: 'ok' });
});

test('the tensor table gives its memory back when it is mostly empty, though a tensor lives on', async () => {
  await settleGarbage();
  const ctx = new api.EagerContext();
  const keep = ctx.tensor([1]);
  const before = ctx.memory().heapBytes;
  const many = new Array(1_000_000);
  const values = new Float32Array(1);
  for (let i = 0; i < many.length; i++) many[i] = ctx.tensor(values, [1]);
  const peak = ctx.memory().heapBytes;
  for (const t of many) t.dispose();
  const after = ctx.memory().heapBytes;
  assert.ok(peak - before > 20e6, `1M tensors took only ${peak - before} bytes`);
  assert.ok(after - before < 1e6, `heap ${after - before} bytes above its level before, with 1 tensor live`);
  assert.deepEqual(Array.from(keep.dataSync()), [1]);
  ctx.dispose();
});

test('tensor lists and TensorArrays made by execute are released with their last handle, in or out of tidy', async () => {
  await settleGarbage();
  const ctx = new api.EagerContext();
  const x = ctx.tensor(new Float32Array(64).fill(2), [16, 4]);
  const shape = ctx.tensor(new Int32Array([4]), [1]);
  const size = ctx.tensor(new Int32Array([4]), []);
  const round = () => {
    const [l] = ctx.execute('TensorListFromTensor', [x, shape]);
    const [ta, flow] = ctx.execute('TensorArrayV3', [size], { dtype: 'float32' });
    return [l, ta, flow];
  };
  // Warm-up: kernels cached, and the tensor table grown to what a tidy of 1,000 rounds needs.
  for (const t of round()) t.dispose();
  ctx.tidy(() => {
    for (let i = 0; i < 1000; i++) round();
  });
  const before = ctx.memory();
  for (let i = 0; i < 1000; i++) for (const t of round()) t.dispose();
  ctx.tidy(() => {
    for (let i = 0; i < 1000; i++) round();
  });
  const after = ctx.memory();
  assert.equal(after.numResources, before.numResources, 'resources left');
  assert.equal(after.numTensors, before.numTensors, 'tensors left');
  assert.equal(after.heapBytes, before.heapBytes, 'heap in use');
  // A list lives while a handle to it does.
  const [l] = ctx.execute('TensorListFromTensor', [x, shape]);
  for (let i = 0; i < 3; i++) for (const t of round()) t.dispose();
  const [n] = ctx.execute('TensorListLength', [l]);
  assert.deepEqual(Array.from(n.dataSync()), [16]);
  ctx.dispose();
});

test('a clear_after_read TensorArray element read twice is InvalidArgument, as in TF', () => {
  const ctx = new api.EagerContext();
  const [ta, flow] = ctx.execute('TensorArrayV3', [ctx.tensor(new Int32Array([2]), [])], { dtype: 'float32' });
  const k = ctx.tensor(new Int32Array([0]), []);
  ctx.execute('TensorArrayWriteV3', [ta, k, ctx.tensor([3, 4]), flow]);
  const [v] = ctx.execute('TensorArrayReadV3', [ta, k, flow], { dtype: 'float32' });
  assert.deepEqual(Array.from(v.dataSync()), [3, 4]);
  assert.throws(
    () => ctx.execute('TensorArrayReadV3', [ta, k, flow], { dtype: 'float32' }),
    (e) => e instanceof api.EagerError && e.code === 'InvalidArgument' && /twice because it was cleared/.test(e.message),
  );
  ctx.dispose();
});

test('a missing on-demand part fails rare ops and error paths with Unavailable, leaves the rest working, and is retried until it loads', () => {
  const dist = mkdtempSync(join(tmpdir(), 'eager-wasm-nocold-'));
  const cold = join(dist, 'eager_wasm_cold.wasm');
  const backup = join(dist, 'cold.wasm.kept');
  try {
    cpSync(join(root, 'dist'), dist, { recursive: true });
    cpSync(cold, backup);
    rmSync(cold);
    const r = run(
      `
const fs = await import('node:fs');
await api.init({ relaxedSimd: false, threads: 1 }); // the split build
const ctx = new api.EagerContext();
const a = ctx.tensor([1, -2]);
const codes = {};
const rare = () => {
  try { ctx.execute('Atan2', [a, a]); return 'ok'; } catch (e) { codes[e.code] = (codes[e.code] ?? 0) + 1; return e.code; }
};
// A hot op's error path is on-demand code too: the load fails inside the call.
const midway = () => {
  try { ctx.execute('MatMul', [a, a]); return 'ok'; } catch (e) { codes[e.code] = (codes[e.code] ?? 0) + 1; return e.code; }
};
const first = rare();
const [r] = ctx.execute('Relu', [a]);
const relu = Array.from(r.dataSync());
const memory = typeof ctx.memory().heapBytes;
const firstMidway = midway();
const [r2] = ctx.execute('Relu', [a]);
const reluAfterMidway = Array.from(r2.dataSync());
for (let i = 0; i < 3000; i++) { rare(); midway(); }
const ctx2 = new api.EagerContext();
const [s] = ctx2.execute('AddV2', [ctx2.tensor([1]), ctx2.tensor([2])]);
const add = Array.from(s.dataSync());
fs.copyFileSync(${JSON.stringify(backup)}, ${JSON.stringify(cold)});
const [t] = ctx.execute('Atan2', [a, a]);
const atan2 = Array.from(t.dataSync());
const errorPath = midway();
console.log(JSON.stringify({ first, relu, memory, firstMidway, reluAfterMidway, codes, add, atan2, errorPath, loaded: api.wasmFeatures().coldCodeLoaded }));
`,
      { dist },
    );
    assert.equal(r.first, 'Unavailable');
    assert.deepEqual(r.relu, [1, 0]);
    assert.equal(r.memory, 'number');
    assert.equal(r.firstMidway, 'Unavailable');
    assert.deepEqual(r.reluAfterMidway, [1, 0]);
    assert.deepEqual(r.codes, { Unavailable: 6002, InvalidArgument: 1 });
    assert.equal(r.errorPath, 'InvalidArgument');
    assert.deepEqual(r.add, [3]);
    assert.equal(r.loaded, true);
    const want = [Math.atan2(1, 1), Math.atan2(-2, -2)];
    r.atan2.forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-6, `atan2[${i}] ${v}`));
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
});
