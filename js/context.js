// EagerContext: tensors, execute, tidy, model loading, cache options and the memory report.

import { WasmContext, scopeBegin, scopeEnd, weightPaths } from './eager_wasm.js';
import { EagerError, callWasm, toEagerError } from './errors.js';
import { concat, fetchBytes, inMemoryWeights, resolveUrl, utf8 } from './fetch.js';
import { ioFor, readOutputs } from './io.js';
import { GraphModel, LayersModel } from './model.js';
import { cachedModelJsonText, loadFromText } from './model-text.js';
import { makeOps, opIdOf } from './ops.js';
import { ensureInit } from './runtime.js';
import { Tensor, dtypeOfTyped, flatten, toTyped } from './tensor.js';

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
   * @param {object} [options] `{ cache: { maxEntries, maxBytes, exclude }, resourceNames, maxLoopIterations }`
   */
  constructor(options) {
    ensureInit();
    this._w = callWasm(() => new WasmContext(options));
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
    return readOutputs(this, this._run(opIdOf(op), op, inputs, attrs));
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

