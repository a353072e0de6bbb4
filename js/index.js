// eager-wasm: the public JS API. A thin layer over the wasm-bindgen exports (./eager_wasm.js):
// ergonomics only (typed-array conversion, nested arrays, result shapes, fetching); cache, memory,
// validation and lifetime logic live in Rust (src/bindings/).
//
// Tensors cross the boundary as numeric handles in a shared Float64Array scratch buffer that lives
// in wasm memory (`io`): the execute path passes no strings, creates no wasm-bindgen objects and
// allocates nothing beyond the JS Tensor objects it returns.

import wbgInit, {
  WasmContext,
  initRuntime,
  ioLength,
  ioReserve,
  opId,
  opNames,
  relaxedSimdBuild,
  resetHeapPeak,
  scopeBegin,
  scopeEnd,
  stageJson,
  tensorData,
  tensorReadInto,
  tensorDispose,
  tensorIsLive,
  weightPaths,
} from './eager_wasm.js';

/** Every failure of eager-wasm: `.code` is the TensorFlow status code name. */
export class EagerError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'EagerError';
    this.code = code;
  }
}

function toEagerError(e) {
  if (e instanceof EagerError) return e;
  if (e !== null && typeof e === 'object' && e.__eagerError === true) {
    return new EagerError(e.code, e.message);
  }
  if (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) {
    return new EagerError(
      'Internal',
      `eager-wasm internal error (a bug, please report it): ${e.message}. ` +
        'The runtime may be unusable until it is reloaded.',
      { cause: e },
    );
  }
  return e;
}

const DTYPES = ['float32', 'int32', 'int64', 'bool', 'resource'];

let exportsRef = null; // the wasm instance exports, after init()
let initPromise = null;

const isNode =
  typeof process === 'object' &&
  process !== null &&
  typeof process.versions === 'object' &&
  typeof process.versions.node === 'string' &&
  typeof window === 'undefined';

// A one-function module using f32x4.relaxed_madd: it validates where the engine has relaxed SIMD.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 0, 32, 0,
  253, 133, 2, 11,
]);

function engineHasRelaxedSimd() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * Loads and instantiates the wasm module. No argument needed: in a browser the .wasm is fetched
 * from next to this file (new URL(..., import.meta.url), which bundlers understand); in Node it is
 * read with fs. Of the two builds, the relaxed-SIMD one (fused multiply-add) is taken where the
 * engine supports it, else the plain SIMD128 one; `{ relaxedSimd: false }` forces the plain one.
 * Pass a URL, Response, BufferSource or WebAssembly.Module to load a given file. Idempotent.
 */
export function init(input) {
  if (initPromise === null) {
    initPromise = (async () => {
      let source = input;
      if (source === undefined || isInitOptions(source)) {
        const relaxed = source?.relaxedSimd !== false && engineHasRelaxedSimd();
        const url = relaxed
          ? new URL('./eager_wasm_relaxed_bg.wasm', import.meta.url)
          : new URL('./eager_wasm_bg.wasm', import.meta.url);
        if (isNode) {
          const fsName = 'node:fs/promises';
          const { readFile } = await import(/* @vite-ignore */ fsName);
          source = await readFile(url);
        } else {
          source = url;
        }
      }
      exportsRef = await wbgInit({ module_or_path: source });
      initRuntime();
      io = EMPTY_IO;
    })().catch((e) => {
      initPromise = null;
      throw new EagerError('Unavailable', `could not load the eager-wasm module: ${e?.message ?? e}`, {
        cause: e,
      });
    });
  }
  return initPromise;
}

function isInitOptions(v) {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

/** Which build init() loaded: `{ simd: true, relaxedSimd }`. */
export function wasmFeatures() {
  ensureInit();
  return { simd: true, relaxedSimd: relaxedSimdBuild() };
}

function ensureInit() {
  if (exportsRef === null) {
    throw new EagerError('FailedPrecondition', 'eager-wasm is not initialized: call `await init()` first');
  }
}

// ---- the scratch buffer --------------------------------------------------------------------------

const EMPTY_IO = new Float64Array(0);
let io = EMPTY_IO;

/** A view of the scratch buffer with room for `n` f64s, rebuilt after memory growth. */
function ioFor(n) {
  // A view over a buffer detached by memory.grow() has length 0.
  if (io.length < n || io.length === 0) {
    const ptr = ioReserve(n);
    io = new Float64Array(exportsRef.memory.buffer, ptr, ioLength());
  }
  return io;
}

/** Parses output records `[handle, dtype, rank, dims...]` written by execute/predict. */
function readOutputs(ctx, len) {
  const v = ioFor(len);
  const out = [];
  for (let p = 0; p < len; p += 3 + v[p + 2]) out.push(tensorAt(ctx, v, p));
  return out;
}

/** The only output of a single-output op (`readOutputs(ctx, len)[0]` without the array). */
function readFirst(ctx, len) {
  const v = ioFor(len);
  return len === 3 + v[2] ? tensorAt(ctx, v, 0) : readOutputs(ctx, len)[0];
}

/** The tensor of the output record at `v[p]`. */
function tensorAt(ctx, v, p) {
  const rank = v[p + 2];
  const shape = new Array(rank);
  for (let i = 0; i < rank; i++) shape[i] = v[p + 3 + i];
  return new Tensor(ctx, v[p], DTYPES[v[p + 1]], shape);
}

// ---- tensors -------------------------------------------------------------------------------------

// Backup release for tensors that are garbage-collected without dispose(). Stale handles (already
// disposed) are ignored by the runtime, so no unregister is needed.
//
// Registration is deferred: a new Tensor goes to `pending` (a plain push), and `pending` is flushed
// (each tensor not disposed by then is registered) at the end of the current job (microtask), or
// synchronously once it holds FLUSH_AT tensors. `pending` holds its tensors strongly, so none can be
// collected before it is registered: every tensor that is not disposed still gets its backup release.
// What this saves is the registry's cost (~0.1 us per tensor in V8, most of it in the GC's handling
// of weak cells) for the common case of a tensor disposed within the job that made it.
const tensorRegistry =
  typeof FinalizationRegistry === 'undefined'
    ? null
    : new FinalizationRegistry((handle) => {
        try {
          tensorDispose(handle);
        } catch {
          // the instance is gone; nothing to release
        }
      });

const FLUSH_AT = 1024;
let pending = [];
let flushQueued = false;

function flushPending() {
  flushQueued = false;
  const list = pending;
  pending = [];
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if (!t._released) tensorRegistry.register(t, t.handle);
  }
}

function track(t) {
  if (tensorRegistry === null) return;
  if (pending.push(t) >= FLUSH_AT) {
    flushPending();
  } else if (!flushQueued) {
    flushQueued = true;
    queueMicrotask(flushPending);
  }
}

export class Tensor {
  /** @internal use ctx.tensor() or ctx.execute() */
  constructor(ctx, handle, dtype, shape) {
    this.context = ctx;
    /** @internal */
    this.handle = handle;
    this.dtype = dtype;
    this.shape = shape;
    /** @internal set by dispose() (a hint for deferred registration; isDisposed asks the runtime) */
    this._released = false;
    track(this);
  }

  get rank() {
    return this.shape.length;
  }

  get size() {
    let n = 1;
    for (const d of this.shape) n *= d;
    return n;
  }

  get isDisposed() {
    return !tensorIsLive(this.handle);
  }

  /** A copy of the values: Float32Array, Int32Array, BigInt64Array (int64) or Uint8Array (bool). */
  dataSync() {
    try {
      return tensorData(this.handle);
    } catch (e) {
      throw toEagerError(e);
    }
  }

  async data() {
    return this.dataSync();
  }

  /**
   * Copies the values into the start of `target` (a typed array of the dtype, as dataSync() would
   * return, with room for them) without allocating; returns `target`. For loops that read an
   * output every frame.
   */
  readInto(target) {
    try {
      tensorReadInto(this.handle, target);
      return target;
    } catch (e) {
      throw toEagerError(e);
    }
  }

  /** The values as nested arrays (numbers, bigints for int64, booleans for bool). */
  arraySync() {
    const d = this.dataSync();
    const flat = this.dtype === 'bool' ? Array.from(d, (x) => x !== 0) : Array.from(d);
    return nest(flat, this.shape, 0, 0)[0];
  }

  async array() {
    return this.arraySync();
  }

  /** Releases the tensor's memory. Idempotent. */
  dispose() {
    this._released = true;
    tensorDispose(this.handle);
  }

  toString() {
    return `Tensor(${this.dtype}, [${this.shape.join(', ')}])`;
  }
}

function nest(flat, shape, dim, offset) {
  if (dim === shape.length) return [flat[offset], offset + 1];
  const out = new Array(shape[dim]);
  for (let i = 0; i < shape[dim]; i++) {
    const [v, next] = nest(flat, shape, dim + 1, offset);
    out[i] = v;
    offset = next;
  }
  return [out, offset];
}

const TYPED = {
  float32: Float32Array,
  int32: Int32Array,
  int64: BigInt64Array,
  bool: Uint8Array,
};

function dtypeOfTyped(v) {
  if (v instanceof Float32Array || v instanceof Float64Array) return 'float32';
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) return 'int64';
  if (v instanceof Uint8Array) return 'bool';
  return 'int32';
}

/** Flattens nested arrays, checking they are rectangular; returns [flat, shape]. */
function flatten(values) {
  const shape = [];
  let level = values;
  while (Array.isArray(level)) {
    shape.push(level.length);
    level = level[0];
  }
  const flat = [];
  const walk = (v, dim) => {
    if (dim === shape.length) {
      if (Array.isArray(v)) throw badNesting(shape);
      flat.push(v);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[dim]) throw badNesting(shape);
    for (const x of v) walk(x, dim + 1);
  };
  walk(values, 0);
  return [flat, shape];
}

function badNesting(shape) {
  return new EagerError(
    'InvalidArgument',
    `nested arrays are not rectangular (expected shape [${shape.join(', ')}] from the first elements)`,
  );
}

function toTyped(values, dtype) {
  const T = TYPED[dtype];
  if (T === undefined) {
    throw new EagerError('InvalidArgument', `unsupported dtype '${dtype}' (supported: ${Object.keys(TYPED).join(', ')})`);
  }
  if (values instanceof T) return values;
  try {
    if (dtype === 'int64') return BigInt64Array.from(values, (x) => BigInt(x));
    if (dtype === 'bool') return Uint8Array.from(values, (x) => (x ? 1 : 0));
    if (values.length > 0 && typeof values[0] === 'bigint') return T.from(values, Number);
    return T.from(values);
  } catch (e) {
    throw new EagerError('InvalidArgument', `cannot convert the values to ${dtype}: ${e.message}`);
  }
}

// ---- contexts ------------------------------------------------------------------------------------

const opIds = new Map();

function resolveOp(op) {
  if (typeof op !== 'string') {
    throw new EagerError('InvalidArgument', `op name must be a string, got ${typeof op}`);
  }
  let id;
  try {
    id = opId(op);
  } catch (e) {
    throw toEagerError(e);
  }
  opIds.set(op, id);
  return id;
}

function collectTensors(v, out, depth) {
  if (v instanceof Tensor) out.push(v);
  else if (depth > 8 || v === null || typeof v !== 'object') return;
  else if (Array.isArray(v)) for (const x of v) collectTensors(x, out, depth + 1);
  else if (v instanceof Map) for (const x of v.values()) collectTensors(x, out, depth + 1);
  else if (Object.getPrototypeOf(v) === Object.prototype) {
    for (const k in v) collectTensors(v[k], out, depth + 1);
  }
}

export class EagerContext {
  /**
   * @param {object} [options] `{ cache: { maxEntries, maxBytes, exclude }, resourceNames }`
   */
  constructor(options) {
    ensureInit();
    try {
      this._w = new WasmContext(options);
    } catch (e) {
      throw toEagerError(e);
    }
    this.ops = makeOps(this);
  }

  /** Numeric id of this context (appears in cross-context error messages). */
  get id() {
    return this._w.id;
  }

  get isDisposed() {
    return this._w.isDisposed;
  }

  /**
   * A tensor from a typed array, nested arrays or a scalar. dtype: from the typed array
   * (Float32Array -> float32, Int32Array -> int32, BigInt64Array -> int64, Uint8Array -> bool),
   * from the values (numbers -> float32, booleans -> bool, bigints -> int64), or the 3rd argument.
   */
  tensor(values, shape, dtype) {
    let flat = values;
    let inferred;
    if (ArrayBuffer.isView(values)) {
      inferred = [values.length];
      dtype ??= dtypeOfTyped(values);
    } else if (Array.isArray(values)) {
      [flat, inferred] = flatten(values);
      dtype ??= typeof flat[0] === 'boolean' ? 'bool' : typeof flat[0] === 'bigint' ? 'int64' : 'float32';
    } else if (typeof values === 'number' || typeof values === 'boolean' || typeof values === 'bigint') {
      flat = [values];
      inferred = [];
      dtype ??= typeof values === 'boolean' ? 'bool' : typeof values === 'bigint' ? 'int64' : 'float32';
    } else {
      throw new EagerError(
        'InvalidArgument',
        `tensor values must be a typed array, nested arrays or a number, got ${values === null ? 'null' : typeof values}`,
      );
    }
    const typed = toTyped(flat, dtype);
    const dims = shape ?? inferred;
    if (!Array.isArray(dims)) {
      throw new EagerError('InvalidArgument', 'shape must be an array of integers');
    }
    const v = ioFor(dims.length);
    for (let i = 0; i < dims.length; i++) v[i] = dims[i];
    let handle;
    try {
      handle = this._w.tensor(typed, dims.length);
    } catch (e) {
      throw toEagerError(e);
    }
    return new Tensor(this, handle, dtype, dims.slice());
  }

  /**
   * Runs any registered op by its TF name, with TF attr names (`{ transpose_b: true }`). Type attrs
   * (`T`) are inferred from the inputs. Returns the output tensors.
   */
  execute(op, inputs, attrs) {
    let id = opIds.get(op);
    if (id === undefined) id = resolveOp(op);
    return readOutputs(this, this._run(id, op, inputs, attrs));
  }

  /** @internal runs op `id` (its name `op` for messages); returns the length of the output records. */
  _run(id, op, inputs, attrs) {
    const n = inputs === undefined ? 0 : inputs.length;
    const v = ioFor(n);
    for (let i = 0; i < n; i++) {
      const t = inputs[i];
      if (!(t instanceof Tensor)) {
        throw new EagerError('InvalidArgument', `input ${i} of ${op} is not a Tensor`);
      }
      v[i] = t.handle;
    }
    try {
      return attrs == null ? this._w.executeNoAttrs(id, n) : this._w.execute(id, n, attrs);
    } catch (e) {
      throw toEagerError(e);
    }
  }

  /**
   * Runs `fn`, then disposes every tensor made inside it except those it returns (in a Tensor, an
   * array or a plain object). Nested tidies pass kept tensors to the enclosing one.
   */
  tidy(nameOrFn, maybeFn) {
    const fn = typeof nameOrFn === 'function' ? nameOrFn : maybeFn;
    if (typeof fn !== 'function') {
      throw new EagerError('InvalidArgument', 'tidy() needs a function');
    }
    scopeBegin();
    let result;
    try {
      result = fn();
    } catch (e) {
      scopeEnd(0);
      throw e;
    }
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      scopeEnd(0);
      throw new EagerError('InvalidArgument', 'tidy() callback must be synchronous (it returned a Promise)');
    }
    const keep = [];
    collectTensors(result, keep, 0);
    const v = ioFor(keep.length);
    for (let i = 0; i < keep.length; i++) v[i] = keep[i].handle;
    scopeEnd(keep.length);
    return result;
  }

  /**
   * Loads a TF.js graph model from a URL of its model.json (shards fetched relative to it; in Node
   * also a file path or file: URL), or from memory: `{ modelJson, weights }`, weights being one
   * buffer (shards concatenated), an array of buffers in manifest order, or `{ [path]: buffer }`.
   * `onProgress(fraction)` goes from 0 to 1 (fetching up to 0.9, restoring weights the rest).
   */
  async loadGraphModel(source, options = {}) {
    return this._loadModel(source, options, false);
  }

  /**
   * Loads a TF.js layers model (`format: 'layers-model'`: a Keras model as
   * `tensorflowjs_converter --input_format keras`, TF.js's `model.save()` or Teachable Machine
   * write it), from the same sources as `loadGraphModel`. The model has the same API.
   */
  async loadLayersModel(source, options = {}) {
    return this._loadModel(source, options, true);
  }

  /** @internal the fetching and loading shared by loadGraphModel and loadLayersModel */
  async _loadModel(source, options, layers) {
    ensureInit();
    const onProgress = typeof options.onProgress === 'function' ? options.onProgress : null;
    const progress = (f) => {
      if (onProgress !== null) {
        try {
          onProgress(f);
        } catch {
          // a failing progress callback does not fail the load
        }
      }
    };
    let modelJson;
    let weights;
    if (typeof source === 'string' || source instanceof URL) {
      const fetchFn = options.fetch ?? globalThis.fetch;
      const url = resolveUrl(source);
      progress(0);
      modelJson = await fetchBytes(fetchFn, url, null); // UTF-8 bytes, passed to wasm as they are
      const paths = callWasm(() => weightPaths(utf8(modelJson)));
      const fractions = new Array(paths.length).fill(0);
      const onShard = (i) => (f) => {
        fractions[i] = f;
        progress((0.9 * fractions.reduce((a, b) => a + b, 0)) / Math.max(paths.length, 1));
      };
      const controller = typeof AbortController === 'function' ? new AbortController() : null;
      let buffers;
      try {
        buffers = await Promise.all(
          paths.map((p, i) => fetchBytes(fetchFn, new URL(p, url), onShard(i), controller?.signal)),
        );
      } catch (e) {
        controller?.abort();
        throw e;
      }
      weights = concat(buffers);
    } else if (source !== null && typeof source === 'object' && 'modelJson' in source) {
      modelJson = typeof source.modelJson === 'string' ? source.modelJson : cachedModelJsonText(source.modelJson);
      weights = inMemoryWeights(modelJson, source.weights);
    } else {
      throw new EagerError(
        'InvalidArgument',
        `${layers ? 'loadLayersModel' : 'loadGraphModel'}() takes the URL of a model.json or { modelJson, weights }`,
      );
    }
    progress(0.9);
    const onRestore = onProgress === null ? undefined : (done, total) => progress(0.9 + (0.1 * done) / (total || 1));
    const w = callWasm(() => {
      if (layers) return this._w.loadLayersModel(utf8(modelJson), weights, onRestore);
      return typeof modelJson === 'string'
        ? loadFromText(this._w, modelJson, weights, onRestore)
        : this._w.loadModel(modelJson, weights, onRestore);
    });
    progress(1);
    return layers ? new LayersModel(this, w) : new GraphModel(this, w);
  }

  /** `{ entries, bytes, hits, misses, evictions, bypassed, byOp: { [op]: {...} }, warnings }` */
  cacheStats() {
    return callWasm(() => this._w.cacheStats());
  }

  /** Current cache options `{ maxEntries, maxBytes, exclude }` (Infinity when unbounded). */
  cacheOptions() {
    return callWasm(() => this._w.cacheOptions());
  }

  /**
   * `{ heapBytes, heapPeakBytes, wasmMemoryBytes, numTensors, tensorBytes, numResources,
   *    resourceBytes, cacheEntries, cacheBytes }`
   */
  memory() {
    return callWasm(() => this._w.memory());
  }

  /** Changes the given cache options (others keep their values); applies at once. */
  setCacheOptions(options) {
    callWasm(() => this._w.setCacheOptions(options));
  }

  /** Drops every cached kernel (statistics are kept). */
  clearCache() {
    callWasm(() => this._w.clearCache());
  }

  /** Drops every cached kernel and zeroes the statistics. */
  resetCache() {
    callWasm(() => this._w.resetCache());
  }

  /** Releases everything the context owns: models, tensors, cached kernels, resources. Idempotent. */
  dispose() {
    callWasm(() => this._w.dispose());
  }
}

function callWasm(f) {
  try {
    return f();
  } catch (e) {
    throw toEagerError(e);
  }
}

// ---- models --------------------------------------------------------------------------------------

export class GraphModel {
  /** @internal use ctx.loadGraphModel() */
  constructor(ctx, w) {
    this.context = ctx;
    this._w = w;
    this._disposed = false;
    const info = JSON.parse(w.infoJson());
    /** `[{ name, tensorName, dtype, shape }]` */
    this.inputs = info.inputs;
    this.outputs = info.outputs;
  }

  get isDisposed() {
    return this._disposed || this._w.isDisposed;
  }

  /**
   * x: a Tensor (single-input models), an array in `inputs` order, or `{ [name or 'x:0']: Tensor }`.
   * Returns a Tensor for one output, else `{ [output name]: Tensor }`.
   */
  predict(x) {
    if (this._disposed) {
      throw new EagerError('FailedPrecondition', 'this model has been disposed; load it again');
    }
    let names;
    let tensors;
    if (x instanceof Tensor) {
      names = [this.inputs.length > 0 ? this.inputs[0].name : 'input'];
      tensors = [x];
    } else if (Array.isArray(x)) {
      if (x.length !== this.inputs.length) {
        throw new EagerError(
          'InvalidArgument',
          `the model has ${this.inputs.length} input(s) (${this.inputs.map((i) => i.name).join(', ')}), got ${x.length}`,
        );
      }
      names = this.inputs.map((i) => i.name);
      tensors = x;
    } else if (x !== null && typeof x === 'object') {
      names = Object.keys(x);
      tensors = names.map((k) => x[k]);
    } else {
      throw new EagerError('InvalidArgument', 'predict() takes a Tensor, an array of Tensors or { [name]: Tensor }');
    }
    const v = ioFor(tensors.length);
    for (let i = 0; i < tensors.length; i++) {
      if (!(tensors[i] instanceof Tensor)) {
        throw new EagerError('InvalidArgument', `predict input '${names[i]}' is not a Tensor`);
      }
      v[i] = tensors[i].handle;
    }
    const len = callWasm(() => this._w.predict(names));
    const out = readOutputs(this.context, len);
    if (out.length === 1) return out[0];
    const named = {};
    out.forEach((t, i) => {
      named[this.outputs[i]?.name ?? `output_${i}`] = t;
    });
    return named;
  }

  /** Releases every variable and tensor of the model. Idempotent. */
  dispose() {
    if (this._disposed) return;
    callWasm(() => this._w.dispose());
    this._disposed = true;
    this._w.free();
  }
}

/** A TF.js layers (Keras) model: the API of `GraphModel`; inputs are the model's input layers,
 * outputs its output layers (by name). */
export class LayersModel extends GraphModel {}

// ---- fetching ------------------------------------------------------------------------------------

function resolveUrl(source) {
  if (source instanceof URL) return source;
  try {
    return new URL(source);
  } catch {
    // relative: to the page in a browser, to the working directory in Node
  }
  if (typeof location === 'object' && location !== null && location.href) return new URL(source, location.href);
  if (isNode) {
    const cwd = process.cwd().replace(/\\/g, '/');
    return new URL(source, `file://${cwd.startsWith('/') ? '' : '/'}${cwd}/`);
  }
  throw new EagerError('InvalidArgument', `cannot resolve the model URL '${source}'`);
}

async function fetchBytes(fetchFn, url, onProgress, signal) {
  if (url.protocol === 'file:' && isNode && fetchFn === globalThis.fetch) {
    const fsName = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsName);
    try {
      const b = await readFile(url);
      onProgress?.(1);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      throw new EagerError(e.code === 'ENOENT' ? 'NotFound' : 'Unavailable', `cannot read ${url.href}: ${e.message}`);
    }
  }
  if (typeof fetchFn !== 'function') {
    throw new EagerError('Unavailable', 'no fetch() available to load the model');
  }
  let res;
  try {
    res = await fetchFn(url.href, signal ? { signal } : undefined);
  } catch (e) {
    throw new EagerError('Unavailable', `could not fetch ${url.href}: ${e?.message ?? e}`, { cause: e });
  }
  if (!res.ok) {
    const code = res.status === 404 || res.status === 410 ? 'NotFound' : 'Unavailable';
    throw new EagerError(code, `fetching ${url.href} failed: HTTP ${res.status} ${res.statusText ?? ''}`.trim());
  }
  const expected = Number(res.headers?.get?.('content-length') ?? NaN);
  const known = Number.isFinite(expected) && expected > 0;
  let bytes;
  try {
    if (res.body && typeof res.body.getReader === 'function') {
      const reader = res.body.getReader();
      const chunks = [];
      let got = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        got += value.byteLength;
        if (known) onProgress?.(Math.min(got / expected, 1));
      }
      bytes = concat(chunks);
    } else {
      bytes = new Uint8Array(await res.arrayBuffer());
    }
  } catch (e) {
    throw new EagerError('Unavailable', `the download of ${url.href} was interrupted: ${e?.message ?? e}`, {
      cause: e,
    });
  }
  // Content-Encoding makes the header count compressed bytes; only compare when there is none.
  const encoded = res.headers?.get?.('content-encoding');
  if (known && !encoded && bytes.byteLength !== expected) {
    throw new EagerError(
      'InvalidArgument',
      `${url.href} is truncated: ${bytes.byteLength} of ${expected} bytes received`,
    );
  }
  onProgress?.(1);
  return bytes;
}

function asBytes(b, what) {
  if (b instanceof Uint8Array) return b;
  if (b instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer)) {
    return new Uint8Array(b);
  }
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  throw new EagerError('InvalidArgument', `${what} must be an ArrayBuffer or a typed array`);
}

/** UTF-8 bytes of a string (native TextEncoder: no JS loop over the characters). */
const ENCODER = new TextEncoder();
function utf8(s) {
  return s instanceof Uint8Array ? s : ENCODER.encode(s);
}

// ---- model.json objects to text ----------------------------------------------------------------
//
// Pages load the same parsed model.json again and again. Serializing it is the largest part of a
// load, while checking that it is unchanged is a fraction of that: from its second load on, an
// object's text is remembered together with a trace of everything the text was made from (every
// key and primitive value, in order), and reused only if a walk of the object finds exactly that
// trace again. So an edit to the object between loads, anywhere, makes a new text: nothing stale is
// ever loaded. Only plain JSON data is traced (plain objects and arrays, strings, finite numbers,
// booleans, null); anything else (class instances, toJSON, undefined, ...) is serialized each time.

/** model.json object -> null (seen once) or { trace, text }. */
const modelTexts = new WeakMap();
const OBJECT_PROTO = Object.prototype;
const ARRAY_PROTO = Array.prototype;
const END = Symbol('end of object');

function cachedModelJsonText(m) {
  if (m === null || typeof m !== 'object' || OBJECT_PROTO.toJSON !== undefined || ARRAY_PROTO.toJSON !== undefined) {
    return modelJsonText(m);
  }
  const entry = modelTexts.get(m);
  if (entry !== undefined && entry !== null && matchTrace(m, entry.trace, 0) === entry.trace.length) {
    return entry.text;
  }
  const text = modelJsonText(m);
  if (entry === undefined) {
    modelTexts.set(m, null); // the first load pays for no trace; most objects are loaded once
  } else {
    const trace = [];
    modelTexts.set(m, recordTrace(m, trace) ? { trace, text } : null);
  }
  return text;
}

/** Appends the trace of `v` to `out`; false if `v` holds anything but plain JSON data. */
function recordTrace(v, out) {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      out.push(v);
      return true;
    case 'number':
      out.push(v);
      return Number.isFinite(v);
    case 'object': {
      if (v === null) {
        out.push(v);
        return true;
      }
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== ARRAY_PROTO) return false;
        out.push(ARRAY_PROTO, v.length);
        for (let i = 0; i < v.length; i++) if (!recordTrace(v[i], out)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== OBJECT_PROTO && proto !== null) return false;
      out.push(OBJECT_PROTO);
      for (const k in v) {
        out.push(k);
        if (!recordTrace(v[k], out)) return false;
      }
      out.push(END);
      return true;
    }
    default:
      return false;
  }
}

/** Position after `v`'s trace if `trace` holds it at `i`, else -1. */
function matchTrace(v, trace, i) {
  if (typeof v !== 'object' || v === null) return trace[i] === v ? i + 1 : -1;
  if (Array.isArray(v)) {
    if (trace[i] !== ARRAY_PROTO || trace[i + 1] !== v.length || Object.getPrototypeOf(v) !== ARRAY_PROTO) return -1;
    i += 2;
    for (let k = 0; k < v.length && i >= 0; k++) i = matchTrace(v[k], trace, i);
    return i;
  }
  const proto = Object.getPrototypeOf(v);
  if (trace[i] !== OBJECT_PROTO || (proto !== OBJECT_PROTO && proto !== null)) return -1;
  i += 1;
  for (const k in v) {
    if (trace[i] !== k) return -1;
    i = matchTrace(v[k], trace, i + 1);
    if (i < 0) return -1;
  }
  return trace[i] === END ? i + 1 : -1;
}

/**
 * JSON text of a parsed model.json with only what the loader reads: serializing is most of the cost
 * of loading from an object. Left out: top-level metadata (generatedBy, userDefinedMetadata, ...) and
 * the attrs of Const nodes whose value comes from the weights manifest (the loader never reads them).
 * Anything of an unexpected shape is kept as it is, so the loader reports it as before.
 */
function modelJsonText(m) {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return JSON.stringify(m);
  const topo = m.modelTopology;
  const manifest = m.weightsManifest;
  let slim = topo;
  const weightNames = new Set();
  if (topo !== null && typeof topo === 'object' && Array.isArray(topo.node) && Array.isArray(manifest)) {
    for (const g of manifest) {
      if (g === null || typeof g !== 'object' || !Array.isArray(g.weights)) continue;
      for (const w of g.weights) if (w !== null && typeof w === 'object') weightNames.add(w.name);
    }
    const nodes = topo.node.map((n) =>
      n !== null &&
      typeof n === 'object' &&
      n.op === 'Const' &&
      weightNames.has(n.name) &&
      n.attr !== null &&
      typeof n.attr === 'object' &&
      !Array.isArray(n.attr)
        ? { name: n.name, op: n.op, input: n.input }
        : n,
    );
    slim = { node: nodes, library: topo.library };
  }
  return JSON.stringify({
    format: m.format,
    modelTopology: slim,
    weightsManifest: manifest,
    signature: m.signature,
  });
}

/** Loads from model.json text that the native encoder writes straight into wasm memory. */
function loadFromText(w, text, weights, onRestore) {
  // UTF-8 of n UTF-16 units: n bytes if ASCII (nearly always), at most 3n.
  for (const cap of [text.length, text.length * 3]) {
    const ptr = stageJson(cap);
    const { read, written } = ENCODER.encodeInto(text, new Uint8Array(exportsRef.memory.buffer, ptr, cap));
    if (read === text.length) return w.loadModelStaged(written, weights, onRestore);
  }
  throw new EagerError('Internal', 'model.json text did not fit its UTF-8 bound');
}

function inMemoryWeights(modelJson, weights) {
  if (weights === undefined || weights === null) return new Uint8Array(0);
  if (Array.isArray(weights)) return concat(weights.map((w, i) => asBytes(w, `weights[${i}]`)));
  if (weights instanceof ArrayBuffer || ArrayBuffer.isView(weights)) return asBytes(weights, 'weights');
  if (typeof weights === 'object') {
    const paths = callWasm(() => weightPaths(utf8(modelJson)));
    return concat(
      paths.map((p) => {
        if (!(p in weights)) throw new EagerError('NotFound', `weights for shard '${p}' are missing`);
        return asBytes(weights[p], `weights['${p}']`);
      }),
    );
  }
  throw new EagerError('InvalidArgument', 'weights must be a buffer, an array of buffers or { [path]: buffer }');
}

function concat(parts) {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.byteLength;
  }
  return out;
}

// ---- typed helpers -------------------------------------------------------------------------------

function pair(v, name) {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return [1, v, v, 1];
  if (Array.isArray(v) && v.length === 2) return [1, v[0], v[1], 1];
  if (Array.isArray(v) && v.length === 4) return v;
  throw new EagerError('InvalidArgument', `${name} must be a number, [h, w] or [1, h, w, 1]`);
}

function makeOps(ctx) {
  // Every helper's op has one output: skip the outputs array.
  const one = (op, inputs, attrs) => {
    let id = opIds.get(op);
    if (id === undefined) id = resolveOp(op);
    return readFirst(ctx, ctx._run(id, op, inputs, attrs));
  };
  const unary = (op) => (x) => one(op, [x]);
  const binary = (op) => (a, b) => one(op, [a, b]);
  const withIntTensor = (op, x, values) => {
    const t = ctx.tensor(Int32Array.from(values), [values.length]);
    try {
      return one(op, [x, t]);
    } finally {
      t.dispose();
    }
  };
  const conv = (op) => (x, filter, o = {}) =>
    one(op, [x, filter], {
      strides: pair(o.strides ?? 1, 'strides'),
      padding: o.padding ?? 'VALID',
      dilations: pair(o.dilations, 'dilations'),
      explicit_paddings: o.explicitPaddings,
      data_format: o.dataFormat,
    });
  const pool = (op) => (x, o = {}) =>
    one(op, [x], {
      ksize: pair(o.filterSize ?? o.ksize ?? 2, 'filterSize'),
      strides: pair(o.strides ?? o.filterSize ?? 2, 'strides'),
      padding: o.padding ?? 'VALID',
      data_format: o.dataFormat,
    });
  return {
    matMul: (a, b, o = {}) => one('MatMul', [a, b], { transpose_a: o.transposeA, transpose_b: o.transposeB }),
    conv2d: conv('Conv2D'),
    depthwiseConv2d: conv('DepthwiseConv2dNative'),
    maxPool: pool('MaxPool'),
    avgPool: pool('AvgPool'),
    add: binary('AddV2'),
    sub: binary('Sub'),
    mul: binary('Mul'),
    div: binary('RealDiv'),
    maximum: binary('Maximum'),
    minimum: binary('Minimum'),
    pow: binary('Pow'),
    biasAdd: binary('BiasAdd'),
    relu: unary('Relu'),
    relu6: unary('Relu6'),
    sigmoid: unary('Sigmoid'),
    tanh: unary('Tanh'),
    exp: unary('Exp'),
    log: unary('Log'),
    sqrt: unary('Sqrt'),
    neg: unary('Neg'),
    abs: unary('Abs'),
    softmax: unary('Softmax'),
    identity: unary('Identity'),
    leakyRelu: (x, alpha = 0.2) => one('LeakyRelu', [x], { alpha }),
    cast: (x, dtype) => one('Cast', [x], { DstT: dtype }),
    reshape: (x, shape) => withIntTensor('Reshape', x, shape),
    transpose: (x, perm) => withIntTensor('Transpose', x, perm ?? [...x.shape.keys()].reverse()),
    sum: (x, axes, keepDims = false) => {
      const t = ctx.tensor(Int32Array.from(axes), [axes.length]);
      try {
        return one('Sum', [x, t], { keep_dims: keepDims });
      } finally {
        t.dispose();
      }
    },
  };
}

// ---- misc ----------------------------------------------------------------------------------------

/** Names of every op the runtime implements, sorted. */
export function registeredOps() {
  ensureInit();
  return opNames();
}

/** Sets the heap high-water mark (memory().heapPeakBytes) back to the current heap in use. */
export function resetPeakMemory() {
  ensureInit();
  resetHeapPeak();
}
