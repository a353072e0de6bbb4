// The benchmark cases, shared by the Chromium page (bench/page.html) and Node (bench/node.mjs).
//
// Runtimes: eager-wasm (dist/), TF.js wasm backend (SIMD build, 1 thread), onnxruntime-web (wasm
// EP, 1 thread). Everything here is environment-agnostic: the caller passes the libraries and an
// `io.bytes(path)` that reads a repo-relative file.
//
// Method (see bench/README.md): per runtime and case, warm-up, then calibrate a batch of
// iterations lasting >= minSampleMs, then time `samples` batches; per-iteration time of each batch
// -> median, p10, p90. Before timing, every runtime's output is read once and compared with the
// case's reference (TF's reference.json for the sample models, else TF.js's output, else
// eager-wasm's); a mismatch is reported loudly and kept in the results.

import { modelCases, readModel } from './model-cases.mjs';
import { zooCases } from './zoo.mjs';

export const RUNTIMES = ['eager', 'tfjs', 'ort'];
export const RUNTIME_LABELS = { eager: 'eager-wasm', tfjs: 'tfjs-wasm', ort: 'ORT-web' };

const now = () => performance.now();

class NotApplicable extends Error {}
const na = (reason) => {
  throw new NotApplicable(reason);
};

// ------------------------------------------------------------------------------------ data

/** Deterministic uniform [-1, 1) floats (mulberry32), identical in every environment. */
export function randomFloats(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}

/** NHWC [1,H,W,C] -> NCHW [1,C,H,W]. */
function nhwcToNchw(x, h, w, c) {
  const out = new Float32Array(x.length);
  for (let y = 0; y < h; y++) for (let xx = 0; xx < w; xx++) for (let ch = 0; ch < c; ch++) {
    out[(ch * h + y) * w + xx] = x[(y * w + xx) * c + ch];
  }
  return out;
}
function nchwToNhwc(x, h, w, c) {
  const out = new Float32Array(x.length);
  for (let y = 0; y < h; y++) for (let xx = 0; xx < w; xx++) for (let ch = 0; ch < c; ch++) {
    out[(y * w + xx) * c + ch] = x[(ch * h + y) * w + xx];
  }
  return out;
}
/** HWIO [kh,kw,ci,co] -> OIHW [co,ci,kh,kw] (for depthwise pass ci=1 after [kh,kw,C,1]->[C,1,kh,kw]). */
function hwioToOihw(f, kh, kw, ci, co) {
  const out = new Float32Array(f.length);
  for (let y = 0; y < kh; y++) for (let x = 0; x < kw; x++) for (let i = 0; i < ci; i++) for (let o = 0; o < co; o++) {
    out[((o * ci + i) * kh + y) * kw + x] = f[((y * kw + x) * ci + i) * co + o];
  }
  return out;
}

function summarize(arr) {
  let sum = 0;
  let maxAbs = 0;
  for (let i = 0; i < arr.length; i++) {
    sum += arr[i];
    const a = Math.abs(arr[i]);
    if (a > maxAbs) maxAbs = a;
  }
  return { checksum: sum, maxAbs, length: arr.length };
}

function compare(got, ref) {
  if (got.length !== ref.length) return { maxAbsDiff: Infinity, tol: 0, match: false, why: `length ${got.length} != ${ref.length}` };
  let maxAbsDiff = 0;
  let refMax = 0;
  for (let i = 0; i < ref.length; i++) {
    const d = Math.abs(got[i] - ref[i]);
    if (!(d <= maxAbsDiff)) maxAbsDiff = Number.isNaN(d) ? Infinity : Math.max(maxAbsDiff, d);
    refMax = Math.max(refMax, Math.abs(ref[i]));
  }
  // different summation orders (SIMD lanes, blocking) differ in the last bits; a wrong result
  // differs by O(values)
  const tol = 1e-3 * Math.max(1, refMax);
  return { maxAbsDiff, tol, match: maxAbsDiff <= tol };
}

function quantiles(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => {
    const pos = (s.length - 1) * p;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return s[lo] + (s[hi] - s[lo]) * (pos - lo);
  };
  return { median: q(0.5), p10: q(0.1), p90: q(0.9), min: s[0], max: s[s.length - 1] };
}

// ------------------------------------------------------------------------------------ timing

export function timingConfig(quick) {
  return quick
    ? { warmupIters: 2, warmupMs: 30, minSampleMs: 10, samples: 5, minSamples: 3, budgetMs: 2500 }
    : { warmupIters: 5, warmupMs: 400, minSampleMs: 50, samples: 21, minSamples: 5, budgetMs: 12000 };
}

async function runBatch(step, isAsync, n) {
  const t0 = now();
  if (isAsync) for (let i = 0; i < n; i++) await step();
  else for (let i = 0; i < n; i++) step();
  return now() - t0;
}

/** Warm-up, then the batch size that makes one sample last >= minSampleMs. */
async function calibrate(step, isAsync, cfg, minBatch = 1) {
  // warm-up: JIT, kernel caches, packed weights, allocator pools
  const tw = now();
  let n = 0;
  while (n < cfg.warmupIters || now() - tw < cfg.warmupMs) {
    await runBatch(step, isAsync, 1);
    n++;
  }
  // the fastest of 3 timings, so that one hiccup of a loaded machine doesn't stop the growth early
  const timeBatch = async (b) => {
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const t = await runBatch(step, isAsync, b);
      best = Math.min(best, t);
      if (t >= cfg.minSampleMs * 4) break; // slow case: one timing is enough
    }
    return best;
  };
  let batch = minBatch;
  let t = await timeBatch(batch);
  while (t < cfg.minSampleMs && batch < 1 << 22) {
    batch = Math.max(batch * 2, Math.ceil(((batch * cfg.minSampleMs) / Math.max(t, 1e-3)) * 1.1));
    t = await timeBatch(batch);
  }
  const samples = Math.max(cfg.minSamples, Math.min(cfg.samples, Math.floor(cfg.budgetMs / Math.max(t, 1e-3))));
  return { batch, samples };
}

// ------------------------------------------------------------------------------------ runtimes

async function setupEager(lib, plainSimd, threads = 1) {
  if (lib instanceof Error) throw lib;
  // 'on-demand': no idle prefetch, so the download figure counts what the cases needed.
  // As many threads as the peers are given (1 unless the run asks for more).
  await lib.init({ coldCode: 'on-demand', threads, ...(plainSimd ? { relaxedSimd: false } : {}) });
  if (lib.wasmFeatures().threads !== threads) throw new Error(`eager-wasm runs ${lib.wasmFeatures().threads} threads, ${threads} asked`);
  const ctx = new lib.EagerContext();
  const ops = new Set(lib.registeredOps());
  return { lib, ctx, ops, info: { registeredOps: ops.size, ...lib.wasmFeatures() } };
}

async function setupTfjs(lib, wasmPrefix, threads) {
  if (lib instanceof Error) throw lib;
  const { core: tf, wasm } = lib;
  // One thread: the plain SIMD build, no threaded build even where SharedArrayBuffer exists. More:
  // the threaded SIMD build (TF.js picks it on a cross-origin-isolated page) with that many.
  if (threads === 1) tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  wasm.setThreadsCount(threads);
  wasm.setWasmPaths(wasmPrefix);
  if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed');
  await tf.ready();
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  if (!simd) throw new Error('TF.js reports no wasm SIMD support: its numbers would be of the non-SIMD build');
  // (TF.js's threaded build can report fewer threads than asked: XNNPACK's pool as it made it.
  // The report shows the count it gives.)
  if (threads === 1 && wasm.getThreadsCount() !== 1) throw new Error(`TF.js runs ${wasm.getThreadsCount()} threads, 1 asked`);
  return {
    tf,
    loadGraphModel: lib.converter.loadGraphModel,
    info: {
      version: tf.version_core ?? tf.version?.['tfjs-core'],
      backend: tf.getBackend(),
      simd,
      threads: wasm.getThreadsCount(),
      threadsAsked: threads,
      multithreadBuild: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
      wasmFile: threads > 1 ? 'tfjs-backend-wasm-threaded-simd.wasm' : 'tfjs-backend-wasm-simd.wasm',
    },
  };
}

async function setupOrt(ort, wasmPaths, io, threads) {
  if (ort instanceof Error) throw ort;
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true; // ignored by recent versions (SIMD is always on), kept for older ones
  ort.env.wasm.proxy = false;
  if (wasmPaths) ort.env.wasm.wasmPaths = wasmPaths;
  ort.env.logLevel = 'error';
  const model = await io.bytes('bench/models/add1.onnx'); // initializes the wasm module
  const s = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
  await s.release();
  return { ort, info: { version: ort.env.versions?.web ?? ort.env.versions?.common, numThreads: ort.env.wasm.numThreads } };
}

const ORT_OPTS = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };

// ------------------------------------------------------------------------------------ cases

function gemmFlops(m, n, k) {
  return 2 * m * n * k;
}

function needOps(E, ...names) {
  const missing = names.filter((o) => !E.ops.has(o));
  if (missing.length) na(`op${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not in eager-wasm yet`);
}

/** Keeps an eager-wasm error message short for a table cell. */
function short(e) {
  const m = String(e?.message ?? e).split('\n')[0];
  return m.length > 90 ? m.slice(0, 87) + '...' : m;
}

/** The output's values, then the output disposed. */
function readAndDispose(y) {
  const v = y.dataSync();
  y.dispose();
  return v;
}

/** A timed step of op + dispose (both eager-wasm and TF.js's wasm backend run ops synchronously,
 * so the op has finished when it returns); the output is read once, untimed, for the check. */
function computeOnly(run, dispose) {
  return { step: () => run().dispose(), check: () => readAndDispose(run()), dispose };
}

/**
 * Two cases per kernel: `id` times the op alone (its GFLOP/s is the kernel's: the target rows),
 * `id_read` the op + `dataSync()` of the result (what a page pays to get the values into JS). ORT
 * appears only in the second: `session.run` always copies its output out.
 * `eager` / `tfjs` return `{ run: () => outputTensor, dispose }`.
 */
function pushKernelCases(cases, { id, label, flops, eager, tfjs, ort }) {
  const compute = (setup) => async (R) => {
    const k = await setup(R);
    return computeOnly(k.run, k.dispose);
  };
  const withRead = (setup) => async (R) => {
    const k = await setup(R);
    return { step: () => readAndDispose(k.run()), dispose: k.dispose };
  };
  cases.push({
    id,
    label,
    unit: 'gflops',
    flops,
    eager: compute(eager),
    tfjs: compute(tfjs),
    ort: () => na('session.run copies its output out: see + dataSync()'),
  });
  cases.push({ id: `${id}_read`, label: `${label} + dataSync()`, unit: 'gflops', flops, eager: withRead(eager), tfjs: withRead(tfjs), ort });
}

function makeCases(R, data) {
  const cases = [];
  const modelHelpers = { na, ortOptions: ORT_OPTS };

  // ---- 1. per-op eager dispatch
  for (const variant of ['execute', 'ops.add']) {
    cases.push({
      id: variant === 'execute' ? 'dispatch_add' : 'dispatch_add_ops',
      label: `add [1]+[1] incl. dispose (eager: ${variant === 'execute' ? "ctx.execute('AddV2')" : 'ctx.ops.add'})`,
      unit: 'us',
      minBatch: 1000,
      ref: () => new Float32Array([1.5 + 2.25]),
      eager: (E) => {
        const a = E.ctx.tensor(new Float32Array([1.5]), [1]);
        const b = E.ctx.tensor(new Float32Array([2.25]), [1]);
        const run = variant === 'execute' ? () => E.ctx.execute('AddV2', [a, b])[0] : () => E.ctx.ops.add(a, b);
        return computeOnly(run, () => (a.dispose(), b.dispose()));
      },
      tfjs: (T) => {
        const { tf } = T;
        const a = tf.tensor1d([1.5]);
        const b = tf.tensor1d([2.25]);
        return computeOnly(() => tf.add(a, b), () => (a.dispose(), b.dispose()));
      },
      ort: async (O) => {
        const s = await O.ort.InferenceSession.create(await data.bytes('bench/models/add1.onnx'), ORT_OPTS);
        const feeds = {
          a: new O.ort.Tensor('float32', new Float32Array([1.5]), [1]),
          b: new O.ort.Tensor('float32', new Float32Array([2.25]), [1]),
        };
        const step = async () => (await s.run(feeds)).y.data;
        return { step, async: true, dispose: () => s.release(), note: 'session.run of a one-node Add graph (reference; ORT has no eager ops)' };
      },
    });
  }

  // ---- 2. matmul
  for (const n of [256, 1024]) {
    const A = () => data.cached(`A${n}`, () => randomFloats(n * n, 11 + n));
    const B = () => data.cached(`B${n}`, () => randomFloats(n * n, 23 + n));
    pushKernelCases(cases, {
      id: `matmul${n}`,
      label: `matmul ${n}x${n}x${n} f32`,
      flops: gemmFlops(n, n, n),
      eager: (E) => {
        needOps(E, 'MatMul');
        const a = E.ctx.tensor(A(), [n, n]);
        const b = E.ctx.tensor(B(), [n, n]);
        return { run: () => E.ctx.execute('MatMul', [a, b])[0], dispose: () => (a.dispose(), b.dispose()) };
      },
      tfjs: (T) => {
        const a = T.tf.tensor2d(A(), [n, n]);
        const b = T.tf.tensor2d(B(), [n, n]);
        return { run: () => T.tf.matMul(a, b), dispose: () => (a.dispose(), b.dispose()) };
      },
      ort: async (O) => {
        const name = `matmul${n}`;
        const s = await O.ort.InferenceSession.create(await data.bytes(`bench/models/${name}.onnx`), {
          ...ORT_OPTS,
          externalData: [{ path: `${name}.weights`, data: new Uint8Array(B().buffer.slice(0)) }],
        });
        const feeds = { a: new O.ort.Tensor('float32', A(), [n, n]) };
        return { step: async () => (await s.run(feeds)).y.data, async: true, dispose: () => s.release() };
      },
    });
  }

  // ---- 3. conv2d, 4. depthwise
  const convCases = [
    { id: 'conv2d', label: 'conv2d [1,56,56,64]*[3,3,64,64] SAME', C: 64, CO: 64, depthwise: false },
    { id: 'depthwise', label: 'depthwise 3x3 [1,56,56,128] SAME', C: 128, CO: 128, depthwise: true },
  ];
  for (const cc of convCases) {
    const H = 56;
    const W = 56;
    const { C, CO } = cc;
    const X = () => data.cached(`${cc.id}X`, () => randomFloats(H * W * C, 31 + C));
    // conv filter HWIO [3,3,C,CO]; depthwise [3,3,C,1]
    const F = () => data.cached(`${cc.id}F`, () => randomFloats(9 * C * (cc.depthwise ? 1 : CO), 41 + C));
    const fshape = cc.depthwise ? [3, 3, C, 1] : [3, 3, C, CO];
    const op = cc.depthwise ? 'DepthwiseConv2dNative' : 'Conv2D';
    pushKernelCases(cases, {
      id: cc.id,
      label: cc.label,
      flops: cc.depthwise ? 2 * H * W * C * 9 : 2 * H * W * CO * 9 * C,
      eager: (E) => {
        needOps(E, op);
        const x = E.ctx.tensor(X(), [1, H, W, C]);
        const f = E.ctx.tensor(F(), fshape);
        const attrs = { strides: [1, 1, 1, 1], padding: 'SAME' };
        return { run: () => E.ctx.execute(op, [x, f], attrs)[0], dispose: () => (x.dispose(), f.dispose()) };
      },
      tfjs: (T) => {
        const { tf } = T;
        const x = tf.tensor4d(X(), [1, H, W, C]);
        const f = tf.tensor4d(F(), fshape);
        const run = () => (cc.depthwise ? tf.depthwiseConv2d(x, f, 1, 'same') : tf.conv2d(x, f, 1, 'same'));
        return { run, dispose: () => (x.dispose(), f.dispose()) };
      },
      ort: async (O) => {
        // ORT's native layout: NCHW activations, OIHW filter (transposed here, outside the timing)
        const fo = cc.depthwise ? hwioToOihw(F(), 3, 3, 1, C) : hwioToOihw(F(), 3, 3, C, CO);
        const s = await O.ort.InferenceSession.create(await data.bytes(`bench/models/${cc.id}.onnx`), {
          ...ORT_OPTS,
          externalData: [{ path: `${cc.id}.weights`, data: new Uint8Array(fo.buffer) }],
        });
        const feeds = { x: new O.ort.Tensor('float32', nhwcToNchw(X(), H, W, C), [1, C, H, W]) };
        return {
          step: async () => (await s.run(feeds)).y.data,
          async: true,
          toRef: (v) => nchwToNhwc(v, H, W, CO),
          dispose: () => s.release(),
          note: 'NCHW input/output (its native layout; transposed outside the timing)',
        };
      },
    });
  }

  // ---- 4b. other common ops (no target). ORT is not measured: it runs graphs, not single ops, and
  // each would need an ONNX model of its own.
  const L = () => data.cached('L256x1000', () => randomFloats(256 * 1000, 53));
  const Li = () => data.cached('Li256x1000', () => Int32Array.from(L(), (v) => Math.round(v * 1000)));
  const X56 = () => data.cached('depthwiseX', () => randomFloats(56 * 56 * 128, 31 + 128));
  const opCases = [
    {
      id: 'maxpool',
      label: 'maxpool 3x3 stride 2 SAME [1,56,56,128]',
      input: () => [X56(), [1, 56, 56, 128], 'float32'],
      eager: (ctx, x) => ctx.execute('MaxPool', [x], { ksize: [1, 3, 3, 1], strides: [1, 2, 2, 1], padding: 'SAME' })[0],
      tfjs: (tf, x) => tf.maxPool(x, 3, 2, 'same'),
    },
    // Depthwise shapes mobile detectors spend their time in (BlazeFace-style 5x5, stride-2 blocks).
    ...[
      [5, 1],
      [5, 2],
      [3, 2],
    ].map(([k, s]) => ({
      id: `depthwise${k}x${k}s${s}`,
      label: `depthwise ${k}x${k} stride ${s} SAME [1,56,56,128]`,
      input: () => [X56(), [1, 56, 56, 128], 'float32'],
      // The filter, made once outside the timing like the input.
      weight: () => [data.cached(`dw${k}F`, () => randomFloats(k * k * 128, 43 + k)), [k, k, 128, 1], 'float32'],
      eager: (ctx, x, f) => ctx.execute('DepthwiseConv2dNative', [x, f], { strides: [1, s, s, 1], padding: 'SAME' })[0],
      tfjs: (tf, x, f) => tf.depthwiseConv2d(x, f, s, 'same'),
    })),
    // Shapes of the model zoo's models: thin depthwise on large maps, a 7x7, 1x1 convs straight to
    // GEMM, a 2x2 VALID stride-2 conv, and Pad before a stride-2 conv.
    ...[
      ['depthwise3x3s1_112', 3, 112, 32],
      ['depthwise7x7s1', 7, 56, 128],
      ['depthwise5x5s1_128x16', 5, 128, 16],
    ].map(([id, k, hw, c]) => ({
      id,
      label: `depthwise ${k}x${k} stride 1 SAME [1,${hw},${hw},${c}]`,
      input: () => [data.cached(`X${hw}c${c}`, () => randomFloats(hw * hw * c, 31 + c)), [1, hw, hw, c], 'float32'],
      weight: () => [data.cached(`dw${k}c${c}F`, () => randomFloats(k * k * c, 43 + k)), [k, k, c, 1], 'float32'],
      eager: (ctx, x, f) => ctx.execute('DepthwiseConv2dNative', [x, f], { strides: [1, 1, 1, 1], padding: 'SAME' })[0],
      tfjs: (tf, x, f) => tf.depthwiseConv2d(x, f, 1, 'same'),
    })),
    ...[
      ['conv1x1_112', 1, 1, 112, 32, 64],
      ['conv1x1_56', 1, 1, 56, 144, 24],
      ['conv2x2s2', 2, 2, 112, 32, 64],
    ].map(([id, k, s, hw, c, co]) => ({
      id,
      label: `conv2d ${k}x${k}${s > 1 ? ` stride ${s}` : ''} VALID [1,${hw},${hw},${c}] -> ${co}`,
      input: () => [data.cached(`X${hw}c${c}`, () => randomFloats(hw * hw * c, 31 + c)), [1, hw, hw, c], 'float32'],
      weight: () => [data.cached(`cv${k}c${c}F${co}`, () => randomFloats(k * k * c * co, 47 + k)), [k, k, c, co], 'float32'],
      eager: (ctx, x, f) => ctx.execute('Conv2D', [x, f], { strides: [1, s, s, 1], padding: 'VALID' })[0],
      tfjs: (tf, x, f) => tf.conv2d(x, f, s, 'valid'),
    })),
    // Stems: the first conv of image models, on 3 RGB channels (landmarks 192, BlazeFace 256,
    // MobileNet/EfficientNet 224, ResNet-50 224).
    ...[
      ['conv3x3s2_stem192', 3, 192, 16],
      ['conv5x5s2_stem256', 5, 256, 16],
      ['conv3x3s2_stem224', 3, 224, 32],
      ['conv7x7s2_stem224', 7, 224, 64],
    ].map(([id, k, hw, co]) => ({
      id,
      label: `conv2d ${k}x${k} stride 2 SAME [1,${hw},${hw},3] -> ${co}`,
      input: () => [data.cached(`stemX${hw}`, () => randomFloats(hw * hw * 3, 37 + hw)), [1, hw, hw, 3], 'float32'],
      weight: () => [data.cached(`cv${k}c3F${co}`, () => randomFloats(k * k * 3 * co, 53 + k)), [k, k, 3, co], 'float32'],
      eager: (ctx, x, f) => ctx.execute('Conv2D', [x, f], { strides: [1, 2, 2, 1], padding: 'SAME' })[0],
      tfjs: (tf, x, f) => tf.conv2d(x, f, 2, 'same'),
    })),
    {
      // What each runtime runs for a converted `Pad -> Conv2D VALID`: TF.js both ops, eager-wasm
      // the one conv its loader folds them into (EXPLICIT padding, no padded copy).
      id: 'padconv3x3s2',
      label: 'Pad [[0,0],[0,1],[0,1],[0,0]] + conv2d 3x3 stride 2 VALID [1,112,112,32] -> 64',
      input: () => [data.cached('X112c32', () => randomFloats(112 * 112 * 32, 63)), [1, 112, 112, 32], 'float32'],
      weight: () => [data.cached('cv3c32F64', () => randomFloats(9 * 32 * 64, 50)), [3, 3, 32, 64], 'float32'],
      eager: (ctx, x, f) =>
        ctx.execute('Conv2D', [x, f], {
          strides: [1, 2, 2, 1],
          padding: 'EXPLICIT',
          explicit_paddings: [0, 0, 0, 1, 0, 1, 0, 0],
        })[0],
      tfjs: (tf, x, f) => {
        const p = tf.pad(x, [
          [0, 0],
          [0, 1],
          [0, 1],
          [0, 0],
        ]);
        const y = tf.conv2d(p, f, 2, 'valid');
        p.dispose();
        return y;
      },
    },
    {
      id: 'softmax',
      label: 'softmax [256,1000]',
      input: () => [L(), [256, 1000], 'float32'],
      eager: (ctx, x) => ctx.execute('Softmax', [x])[0],
      tfjs: (tf, x) => tf.softmax(x),
    },
    {
      id: 'argmax',
      label: 'argmax [256,1000] over the last axis',
      input: () => [L(), [256, 1000], 'float32'],
      eager: (ctx, x) => {
        const axis = ctx.tensor(new Int32Array([1]), []);
        const [y] = ctx.execute('ArgMax', [x, axis], { output_type: 'int32' });
        axis.dispose();
        return y;
      },
      tfjs: (tf, x) => tf.argMax(x, 1),
    },
    {
      id: 'resize',
      label: 'resize bilinear [1,480,640,3] -> 224x224 (half-pixel)',
      input: () => [data.cached('frame', () => randomFloats(480 * 640 * 3, 61)), [1, 480, 640, 3], 'float32'],
      eager: (ctx, x) => {
        const size = ctx.tensor(new Int32Array([224, 224]), [2]);
        const [y] = ctx.execute('ResizeBilinear', [x, size], { half_pixel_centers: true });
        size.dispose();
        return y;
      },
      tfjs: (tf, x) => tf.image.resizeBilinear(x, [224, 224], false, true),
    },
    {
      id: 'cast',
      label: 'cast int32 -> float32 [256,1000]',
      input: () => [Li(), [256, 1000], 'int32'],
      eager: (ctx, x) => ctx.execute('Cast', [x], { DstT: 'float32' })[0],
      tfjs: (tf, x) => tf.cast(x, 'float32'),
    },
  ];
  for (const oc of opCases) {
    cases.push({
      id: oc.id,
      label: oc.label,
      unit: 'us',
      eager: (E) => {
        const [values, shape] = oc.input();
        const x = E.ctx.tensor(values, shape);
        const w = oc.weight && E.ctx.tensor(...oc.weight().slice(0, 2));
        return computeOnly(() => oc.eager(E.ctx, x, w), () => (x.dispose(), w?.dispose()));
      },
      tfjs: (T) => {
        const [values, shape, dtype] = oc.input();
        const x = T.tf.tensor(values, shape, dtype);
        const w = oc.weight && T.tf.tensor(...oc.weight());
        return computeOnly(() => oc.tfjs(T.tf, x, w), () => (x.dispose(), w?.dispose()));
      },
      ort: () => na('single op (ORT runs graphs; not measured)'),
    });
  }

  // ---- 5. sample models
  // mlp and mobilenet also run in ORT (ONNX translations in bench/models); cnn and lstm (5 unrolled
  // LSTM steps: Split, Sigmoid, Tanh, Mul, small MatMuls) are TF.js only; gru (Keras GRU with
  // unroll=False: a v1 while loop over TensorLists) runs through TF.js's executeAsync.
  for (const name of ['mlp', 'mobilenet', 'cnn', 'lstm', 'gru']) {
    const hasOnnx = name === 'mlp' || name === 'mobilenet';
    const onnxPath = hasOnnx ? `bench/models/${name}.onnx` : null;
    cases.push(
      ...modelCases(modelHelpers, {
        id: name,
        label: name,
        // batch 1: the first example of the TF reference
        fixture: () => data.cachedAsync(`model_${name}`, () => readModel(data.bytes, `tests/fixtures/models/${name}`, { onnxPath, batch1: true })),
        absent: `tests/fixtures/models/${name} is missing`,
        noOnnx: 'no ONNX version of this model',
        ortNote: 'ONNX translated from the same model.json (tools/gen_bench_onnx.py)',
      }),
    );
  }

  // ---- 6. the model zoo (bench/zoo.mjs; models made by tools/gen_zoo.py)
  cases.push(...zooCases({ ...modelHelpers, data, log: data.log }));
  return cases;
}

// ------------------------------------------------------------------------------------ driver

function liveCounts(R) {
  const c = {};
  if (R.eager) c.eager = R.eager.ctx.memory().numTensors;
  if (R.tfjs) c.tfjs = R.tfjs.tf.memory().numTensors;
  return c;
}

/**
 * @param {object} p
 * @param {{eager: any, tfjs: {core, wasm, converter}|Error, ort: any}} p.libs
 * @param {{bytes(path: string): Promise<Uint8Array>, tfjsWasmPrefix: string, ortWasmPaths?: string|object}} p.io
 * @param {string|null} [p.corrupt] runtime whose checked output gets a wrong first element (self-test)
 * @param {boolean} [p.plainSimd] load eager-wasm's plain SIMD128 build even where relaxed SIMD is available
 */
/** The cases' data helpers: file bytes and a cache of prepared inputs. */
function caseData(io, log) {
  const cache = new Map();
  return {
    bytes: io.bytes,
    log,
    cached: (k, f) => (cache.has(k) ? cache.get(k) : (cache.set(k, f()), cache.get(k))),
    cachedAsync: async (k, f) => {
      if (!cache.has(k)) cache.set(k, await f());
      return cache.get(k);
    },
  };
}

/**
 * Runs each case's eager-wasm side once, untimed: the workload scripts/cold-profile.mjs profiles
 * to decide which code the primary module of the split build holds. Returns the ids of the cases
 * that ran, those skipped (with the reason: a zoo model not made yet) and the ops they ran.
 */
export async function exerciseEager({ lib, io, log = console.log, only = () => true }) {
  const R = { eager: await setupEager(lib, false) };
  const ran = [];
  const skipped = [];
  for (const c of makeCases(R, caseData(io, log)).filter((c) => only(c.id))) {
    let impl;
    try {
      impl = await c.eager(R.eager);
    } catch (e) {
      if (!(e instanceof NotApplicable)) throw e;
      skipped.push(`${c.id}: ${e.message}`);
      continue;
    }
    await (impl.check ?? impl.step)();
    await impl.step();
    await impl.dispose?.();
    ran.push(c.id);
  }
  const ops = Object.keys(R.eager.ctx.cacheStats().byOp);
  R.eager.ctx.dispose();
  return { ran, skipped, ops };
}

export async function runSuite({ libs, io, quick = false, only = null, corrupt = null, plainSimd = false, threads = 1, log = console.log }) {
  const cfg = timingConfig(quick);
  const data = caseData(io, log);

  const R = {};
  const runtimes = {};
  const setups = {
    eager: () => setupEager(libs.eager, plainSimd, threads),
    tfjs: () => setupTfjs(libs.tfjs, io.tfjsWasmPrefix, threads),
    ort: () => setupOrt(libs.ort, io.ortWasmPaths, io, threads),
  };
  for (const rt of RUNTIMES) {
    try {
      const t0 = now();
      R[rt] = await setups[rt]();
      runtimes[rt] = { ok: true, initMs: now() - t0, ...R[rt].info };
      log(`[setup] ${RUNTIME_LABELS[rt]}: ok ${JSON.stringify(R[rt].info)}`);
    } catch (e) {
      runtimes[rt] = { ok: false, error: short(e) };
      log(`[setup] ${RUNTIME_LABELS[rt]}: UNAVAILABLE: ${e?.stack ?? e}`);
    }
  }

  const cases = makeCases(R, data).filter((c) => !only || only.some((o) => c.id.includes(o)));
  const results = [];
  for (const c of cases) {
    const row = { id: c.id, label: c.label, unit: c.unit, flops: c.flops ?? null, results: {}, mismatches: [] };
    const outputs = {};
    const before = liveCounts(R);
    const live = {}; // rt -> { impl, batch, samples, per: [] }
    try {
      // 1. prepare each runtime, read its output once (checked below), warm up, calibrate
      for (const rt of RUNTIMES) {
        if (!R[rt]) {
          row.results[rt] = { status: 'na', reason: `runtime unavailable: ${runtimes[rt].error}` };
          continue;
        }
        let impl;
        try {
          impl = await c[rt](R[rt]);
        } catch (e) {
          row.results[rt] = { status: 'na', reason: e instanceof NotApplicable ? e.message : short(e) };
          if (!(e instanceof NotApplicable)) log(`[${c.id}] ${rt} setup failed: ${e?.stack ?? e}`);
          log(`[${c.id}] ${RUNTIME_LABELS[rt]}: n/a (${row.results[rt].reason})`);
          continue;
        }
        live[rt] = { impl, per: [] };
        try {
          let out = await (impl.check ?? impl.step)();
          if (impl.toRef) out = impl.toRef(out);
          outputs[rt] = Float32Array.from(out);
          // --corrupt RT: self-test of the check (a wrong first element must be reported)
          if (corrupt === rt) outputs[rt][0] += 1 + Math.abs(outputs[rt][0]);
          Object.assign(live[rt], await calibrate(impl.step, !!impl.async, cfg, c.minBatch ?? 1));
        } catch (e) {
          row.results[rt] = { status: 'error', reason: short(e) };
          log(`[${c.id}] ${RUNTIME_LABELS[rt]}: ERROR ${e?.stack ?? e}`);
          live[rt].failed = true;
        }
      }
      // 2. interleaved sampling: one batch of each runtime per round (first runtime rotating), so
      //    that a change in machine load hits every runtime alike
      const active = Object.keys(live).filter((rt) => !live[rt].failed);
      const rounds = Math.max(0, ...active.map((rt) => live[rt].samples));
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < active.length; k++) {
          const rt = active[(round + k) % active.length];
          const L = live[rt];
          if (L.failed || L.per.length >= L.samples) continue;
          try {
            L.per.push((await runBatch(L.impl.step, !!L.impl.async, L.batch)) / L.batch);
          } catch (e) {
            L.failed = true;
            row.results[rt] = { status: 'error', reason: short(e) };
            log(`[${c.id}] ${RUNTIME_LABELS[rt]}: ERROR ${e?.stack ?? e}`);
          }
        }
      }
      for (const rt of active) {
        const L = live[rt];
        if (L.failed) continue;
        const m = { ...quantiles(L.per), samples: L.per.length, batch: L.batch, perIterMs: L.per };
        row.results[rt] = { status: 'ok', ...summarize(outputs[rt]), ...m, ...(L.impl.note ? { note: L.impl.note } : {}) };
        if (c.flops) {
          row.results[rt].gflops = { median: c.flops / m.median / 1e6, p10: c.flops / m.p90 / 1e6, p90: c.flops / m.p10 / 1e6 };
        }
        log(`[${c.id}] ${RUNTIME_LABELS[rt]}: median ${fmtMs(m.median)} (p10 ${fmtMs(m.p10)}, p90 ${fmtMs(m.p90)}; ${m.samples} x ${m.batch})`);
      }
    } finally {
      for (const rt of Object.keys(live)) {
        try {
          await live[rt].impl.dispose?.();
        } catch (e) {
          log(`[${c.id}] ${rt} dispose failed: ${e}`);
        }
      }
    }
    // results checked: everyone against one reference
    let ref = c.ref ? await c.ref() : null;
    let refName = c.refLabel ?? (c.ref ? 'the exact result' : null);
    if (!ref) for (const rt of ['tfjs', 'eager', 'ort']) if (outputs[rt]) { ref = outputs[rt]; refName = RUNTIME_LABELS[rt]; break; }
    row.reference = refName;
    for (const rt of Object.keys(outputs)) {
      const cmp = compare(outputs[rt], ref);
      Object.assign(row.results[rt], { maxAbsDiff: cmp.maxAbsDiff, tol: cmp.tol, match: cmp.match });
      if (!cmp.match) {
        row.mismatches.push(rt);
        log(`\n!!!!!!!! CHECKSUM MISMATCH in ${c.id}: ${RUNTIME_LABELS[rt]} differs from ${refName}: max|diff| ${cmp.maxAbsDiff} > tol ${cmp.tol}${cmp.why ? ' (' + cmp.why + ')' : ''} !!!!!!!!\n`);
      }
    }
    // nothing leaked (a leak would also mean a benchmark that skipped a dispose)
    const after = liveCounts(R);
    for (const rt of Object.keys(after)) {
      if (after[rt] !== before[rt]) {
        row.leaks ??= {};
        row.leaks[rt] = after[rt] - before[rt];
        log(`[${c.id}] WARNING: ${RUNTIME_LABELS[rt]} live tensors ${before[rt]} -> ${after[rt]}`);
      }
    }
    results.push(row);
  }
  // The split build: whether any case needed its on-demand part (the download figure counts it then).
  if (R.eager) runtimes.eager.coldCodeLoadedAfterRun = R.eager.lib.wasmFeatures().coldCodeLoaded;
  return { quick, timing: cfg, runtimes, cases: results };
}

function fmtMs(ms) {
  return ms < 0.01 ? `${(ms * 1000).toFixed(2)} us` : `${ms.toFixed(3)} ms`;
}
