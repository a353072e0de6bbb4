// EagerContext: tensors, execute, tidy, model loading, cache options and the memory report.

import { WasmContext, scopeBegin, scopeEnd, weightPaths } from './eager_wasm.js';
import { ensureColdCodeFor, modelNeedsColdCode, loadColdCodeAsync } from './cold-code.js';
import { EagerError, STACK_OP, callWasm, ensureStack, toEagerError } from './errors.js';
import { concat, fetchBytes, inMemoryWeights, resolveUrl, shardUrl, utf8 } from './fetch.js';
import { ioFor, ioWrites, readOutputs } from './io.js';
import { GraphModel, LayersModel } from './model.js';
import { cachedModelJsonText, loadFromText } from './model-text.js';
import { makeOps, opIdOf } from './ops.js';
import { fromPixels } from './pixels.js';
import { ensureInit, wasmFeatures } from './runtime.js';
import { plainCopy, invalid, messageOf } from './snapshot.js';
import { Tensor, handleOf, tensorValues } from './tensor.js';

const NONE = [];
/** Most inputs one op takes (a Proxy can claim any length). */
const MAX_INPUTS = 1 << 24;
const NO_TENSORS = () => undefined;

/** Open tidy scopes (all contexts share one scope stack, as they share one tensor table). */
let tidyDepth = 0;

/** A Tensor's handle, for attrs that take a tensor (undefined for anything else). */
const attrHandle = (v) => handleOf(v);

/** Inputs read before they are written to the scratch buffer (most ops take a few). */
const HANDLES_KEEP = 64;
const handleScratch = new Float64Array(HANDLES_KEEP);

/**
 * Writes the handles of `inputs` (an array of Tensors) to the scratch buffer; returns how many.
 * An array with getters or a Proxy may run caller code while being read: if that code used the
 * buffer (ran an op), the call fails instead of reading handles it overwrote.
 */
export function writeHandles(inputs, op) {
  if (inputs === undefined || inputs === null) return 0;
  try {
    if (!Array.isArray(inputs)) throw invalid(`the inputs of ${op} must be an array of Tensors`);
    const n = inputs.length;
    if (n > MAX_INPUTS) throw invalid(`${op} was given ${n} inputs (at most ${MAX_INPUTS})`);
    // Every input is read (a getter or Proxy may run caller code, which may grow wasm memory and
    // detach a view taken before) before the scratch buffer is taken.
    const writes = ioWrites;
    const hs = n <= HANDLES_KEEP ? handleScratch : new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const h = handleOf(inputs[i]);
      if (h === undefined) throw invalid(`input ${i} of ${op} is not a Tensor`);
      hs[i] = h;
    }
    if (ioWrites !== writes) throw invalid(`the inputs of ${op} ran an op while being read`);
    const v = ioFor(n);
    for (let i = 0; i < n; i++) v[i] = hs[i];
    return n;
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`the inputs of ${op} could not be read: ${messageOf(e)}`, e);
  }
}

/**
 * The tensors `value` holds: itself if a Tensor, else at any depth in arrays, plain objects
 * (prototype Object.prototype or null), Maps and Sets, each object visited once. Class instances
 * and other objects are not searched. Reading it (a getter, a Proxy) runs here; a failure is an
 * EagerError naming `caller`.
 */
function tensorsIn(value, caller) {
  const out = [];
  const seen = new Set();
  const stack = [value];
  try {
    while (stack.length > 0) {
      const v = stack.pop();
      if (v === null || typeof v !== 'object' || seen.has(v)) continue;
      seen.add(v);
      if (handleOf(v) !== undefined) {
        out.push(v);
      } else if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) stack.push(v[i]);
      } else if (v instanceof Map || v instanceof Set) {
        for (const x of v.values()) stack.push(x);
      } else {
        const proto = Object.getPrototypeOf(v);
        if (proto === Object.prototype || proto === null) for (const k of Object.keys(v)) stack.push(v[k]);
      }
    }
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`${caller}: its argument could not be read: ${messageOf(e)}`, e);
  }
  return out;
}

/** Tensors `keep()` saved from the open tidy scopes (handed to every scope's keep list as it closes). */
const keptByKeep = new Set();

/**
 * `tf.keep`: saves `tensor`, made inside a tidy, from being disposed when that tidy (and every
 * enclosing one) ends. Returns it. Outside any tidy it does nothing (nothing would dispose it).
 */
export function keep(tensor) {
  if (handleOf(tensor) === undefined) throw invalid('keep() takes a Tensor');
  if (tidyDepth > 0) keptByKeep.add(tensor);
  return tensor;
}

/**
 * `tf.dispose`: disposes every Tensor in `container`, a Tensor or arrays, plain objects, Maps and
 * Sets of them at any depth (anything else in it is left alone). Disposing twice is harmless.
 */
export function dispose(container) {
  for (const t of tensorsIn(container, 'dispose()')) {
    keptByKeep.delete(t);
    t.dispose();
  }
}

export class EagerContext {
  /**
   * @param {object} [options] `{ cache: { maxEntries, maxBytes, exclude }, resourceNames,
   *   maxLoopIterations, packWeights }`
   */
  constructor(options) {
    ensureInit();
    const plain = plainCopy(options, 'EagerContext options', NO_TENSORS);
    this._w = callWasm(() => new WasmContext(plain));
    this.ops = makeOps(this);
    /** @internal loads under way: their AbortControllers, aborted by dispose() */
    this._loads = new Set();
  }

  /** Numeric id of this context (appears in cross-context error messages). */
  get id() {
    return this._w.id;
  }

  get isDisposed() {
    return callWasm(() => this._w.isDisposed, STACK_OP);
  }

  /**
   * A tensor from a typed array, nested arrays (rows may be typed arrays) or a scalar. dtype: from
   * the typed array as in TF.js (Float32/64Array -> float32, the integer arrays -> int32,
   * BigInt64Array -> int64), from the values (numbers -> float32, booleans -> bool, bigints ->
   * int64), or the 3rd argument. Values are converted exactly or refused (InvalidArgument).
   * 'complex64' takes (real, imaginary) pairs interleaved, as dataSync() and arraySync() give
   * them: `shape` is the logical shape (half the values' count).
   * int64), or the 3rd argument. Values are converted exactly or refused (InvalidArgument). A
   * string tensor: from strings (stored as their UTF-8 bytes), or with dtype 'string' from
   * Uint8Arrays (raw bytes, one per element) and strings mixed.
   */
  tensor(values, shape, dtype) {
    const t = tensorValues(values, shape, dtype);
    const dims = t.dims;
    const v = ioFor(dims.length);
    for (let i = 0; i < dims.length; i++) v[i] = dims[i];
    const complex = t.dtype === 'complex64';
    const handle =
      t.dtype === 'string'
        ? callWasm(() => this._w.tensorStrings(t.typed, dims.length), STACK_OP)
        : callWasm(() => this._w.tensor(t.typed, dims.length, complex), STACK_OP);
    return new Tensor(this, handle, t.dtype, dims);
  }

  /**
   * An image (ImageData, img, canvas, OffscreenCanvas, ImageBitmap, video, VideoFrame, or raw
   * `{ data, width, height }`) as an int32 `[height, width, numChannels]` tensor, as TF.js's
   * `tf.browser.fromPixels`; `{ dtype: 'uint8' }` keeps the bytes.
   */
  fromPixels(source, numChannels, options) {
    return fromPixels(this, source, numChannels, options);
  }

  /**
   * Runs any registered op by its TF name, with TF attr names (`{ transpose_b: true }`). Type attrs
   * (`T`) are inferred from the inputs. Returns the output tensors.
   */
  execute(op, inputs, attrs) {
    return readOutputs(this, this._run(opIdOf(op), op, inputs, attrs));
  }

  /**
   * @internal runs op `id` (its name `op` for messages); returns the length of the output records.
   * The hot path: inputs go to the scratch buffer as handles, attrs as a plain copy.
   */
  _run(id, op, inputs, attrs) {
    ensureColdCodeFor(op);
    // Attrs first: their getters may run ops, which reuse the scratch buffer.
    const plain = attrs === undefined || attrs === null ? null : plainCopy(attrs, `the attrs of ${op}`, attrHandle);
    const n = writeHandles(inputs, op);
    ensureStack(STACK_OP, op);
    try {
      return plain === null ? this._w.executeNoAttrs(id, n) : this._w.execute(id, n, plain);
    } catch (e) {
      throw toEagerError(e);
    }
  }

  /**
   * Runs `fn`, then disposes every tensor made inside it except those it returns: at any depth in
   * arrays, plain or null-prototype objects, Maps and Sets (class instances are not searched).
   * Nested tidies pass kept tensors to the enclosing one. Whatever throws, the scope is closed (a
   * throw from `fn` disposes everything it made).
   */
  tidy(nameOrFn, maybeFn) {
    const fn = typeof nameOrFn === 'function' ? nameOrFn : maybeFn;
    if (typeof fn !== 'function') {
      throw new EagerError('InvalidArgument', 'tidy() needs a function');
    }
    const depth = tidyDepth;
    callWasm(() => scopeBegin(depth), STACK_OP);
    tidyDepth = depth + 1;
    let keep = NONE;
    try {
      const result = fn();
      let promise;
      try {
        promise = result !== null && typeof result === 'object' && typeof result.then === 'function';
      } catch (e) {
        throw invalid(`tidy(): its result could not be read: ${messageOf(e)}`, e);
      }
      if (promise) throw invalid('tidy() callback must be synchronous (it returned a Promise)');
      keep = tensorsIn(result, 'tidy()');
      return result;
    } finally {
      tidyDepth = depth;
      if (keptByKeep.size > 0) {
        keep = [...keep, ...[...keptByKeep].filter((t) => !t.isDisposed)];
        if (depth === 0) keptByKeep.clear(); // out of every scope: nothing will dispose them now
      }
      const v = ioFor(keep.length);
      for (let i = 0; i < keep.length; i++) v[i] = handleOf(keep[i]);
      callWasm(() => scopeEnd(keep.length, depth), STACK_OP);
    }
  }

  /**
   * Loads a TF.js graph model from a URL of its model.json (shards fetched relative to it; in Node
   * also a file path or file: URL), or from memory: `{ modelJson, weights }`, weights being one
   * buffer (shards concatenated), an array of buffers in manifest order, or `{ [path]: buffer }`.
   * `onProgress(fraction)` goes from 0 to 1 (fetching up to 0.9, restoring weights the rest).
   */
  async loadGraphModel(source, options) {
    return this._loadModel(source, options, false);
  }

  /**
   * Loads a TF.js layers model (`format: 'layers-model'`: a Keras model as
   * `tensorflowjs_converter --input_format keras`, TF.js's `model.save()` or Teachable Machine
   * write it), from the same sources as `loadGraphModel`. The model has the same API. Needs the
   * build with the layers format: `await init({ layers: true })`.
   */
  async loadLayersModel(source, options) {
    if (!wasmFeatures().layers) {
      throw new EagerError(
        'FailedPrecondition',
        'loadLayersModel() needs the build with the layers format: call `await init({ layers: true })` ' +
          'before anything else (init() without it loads the smaller graph-model build)',
      );
    }
    return this._loadModel(source, options, true);
  }

  /** @internal the fetching and loading shared by loadGraphModel and loadLayersModel */
  async _loadModel(source, options, layers) {
    ensureInit();
    const { onProgress, fetchFn } = loadOptions(options);
    const progress = (f) => {
      if (onProgress !== null) {
        try {
          onProgress(f);
        } catch {
          // a failing progress callback does not fail the load
        }
      }
    };
    // dispose() aborts the downloads of every load under way and makes the load reject.
    const controller = new AbortController();
    const load = { controller, restoring: false, disposeAfter: false };
    this._loads.add(load);
    try {
      const { modelJson, weights } = await this._loadSource(source, fetchFn, progress, controller.signal, layers);
      if (!layers && modelNeedsColdCode(modelJson)) await loadColdCodeAsync();
      if (controller.signal.aborted || this.isDisposed) throw cancelled();
      progress(0.9);
      const onRestore =
        onProgress === null ? undefined : (done, total) => progress(0.9 + (0.1 * done) / (total || 1));
      load.restoring = true;
      let w;
      try {
        w = callWasm(() => {
          if (layers) return this._w.loadLayersModel(utf8(modelJson), weights, onRestore);
          return typeof modelJson === 'string'
            ? loadFromText(this._w, modelJson, weights, onRestore)
            : this._w.loadModel(modelJson, weights, onRestore);
        });
      } catch (e) {
        throw wrongLoader(e, modelJson, layers) ?? e;
      } finally {
        load.restoring = false;
      }
      if (load.disposeAfter) {
        // dispose() was called from onProgress while wasm held the context: do it now.
        callWasm(() => w.dispose());
        w.free();
        this._loads.delete(load);
        this.dispose();
        throw cancelled();
      }
      let model;
      try {
        model = layers ? new LayersModel(this, w) : new GraphModel(this, w);
      } catch (e) {
        callWasm(() => w.dispose());
        w.free();
        throw e;
      }
      progress(1);
      return model;
    } catch (e) {
      throw controller.signal.aborted && !(e instanceof EagerError && e.code === 'Cancelled') ? cancelled(e) : e;
    } finally {
      this._loads.delete(load);
    }
  }

  /** @internal model.json (bytes or text) and the weights of a load, fetched or from memory. */
  async _loadSource(source, fetchFn, progress, signal, layers) {
    let href = null;
    try {
      if (typeof source === 'string') href = source;
      else if (source instanceof URL) href = String(source.href);
    } catch (e) {
      throw invalid(`the model URL could not be read: ${messageOf(e)}`, e);
    }
    if (href !== null) {
      const url = resolveUrl(href); // a fresh URL: nothing of the caller's object is read again
      progress(0);
      const modelJson = await fetchBytes(fetchFn, url, null, signal, 'model.json'); // UTF-8 bytes, passed to wasm as they are
      const paths = callWasm(() => weightPaths(utf8(modelJson)));
      const urls = paths.map((p) => shardUrl(url, p)); // every path checked before any is fetched
      const fractions = new Array(paths.length).fill(0);
      const onShard = (i) => (f) => {
        fractions[i] = f;
        progress((0.9 * fractions.reduce((a, b) => a + b, 0)) / Math.max(paths.length, 1));
      };
      const shards = new AbortController();
      const stop = () => shards.abort();
      signal.addEventListener('abort', stop);
      try {
        const buffers = await Promise.all(
          urls.map((u, i) => fetchBytes(fetchFn, u, onShard(i), shards.signal)),
        );
        return { modelJson, weights: concat(buffers) };
      } catch (e) {
        shards.abort(); // one shard failed: stop the others
        throw e;
      } finally {
        signal.removeEventListener('abort', stop);
      }
    }
    let json;
    let weightSource;
    try {
      if (source === null || typeof source !== 'object' || !('modelJson' in source)) {
        throw invalid(`${layers ? 'loadLayersModel' : 'loadGraphModel'}() takes the URL of a model.json or { modelJson, weights }`);
      }
      json = source.modelJson;
      weightSource = source.weights;
    } catch (e) {
      throw e instanceof EagerError ? e : invalid(`the model source could not be read: ${messageOf(e)}`, e);
    }
    let modelJson = json;
    if (typeof json !== 'string') {
      try {
        modelJson = cachedModelJsonText(json);
      } catch (e) {
        throw invalid(`modelJson could not be serialized: ${messageOf(e)}`, e);
      }
    }
    return { modelJson, weights: inMemoryWeights(modelJson, weightSource) };
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
   *    resourceBytes, cacheEntries, cacheBytes, numPacked, packedBytes }`
   */
  memory() {
    // Scopes at or below the current tidy depth are left over (a tidy that could not close its
    // scope): close them before reporting. And give back an oversized scratch buffer.
    callWasm(() => scopeEnd(0, tidyDepth), STACK_OP);
    ioFor(0);
    return callWasm(() => this._w.memory());
  }

  /** Changes the given cache options (others keep their values); applies at once. */
  setCacheOptions(options) {
    const plain = plainCopy(options, 'cache options', NO_TENSORS);
    callWasm(() => this._w.setCacheOptions(plain));
  }

  /** Drops every cached kernel (statistics are kept). */
  clearCache() {
    callWasm(() => this._w.clearCache());
  }

  /** Drops every cached kernel and zeroes the statistics. */
  resetCache() {
    callWasm(() => this._w.resetCache());
  }

  /**
   * Releases everything the context owns: models, tensors, cached kernels, resources. Idempotent.
   * Loads under way are aborted (their downloads too) and reject with EagerError('Cancelled').
   */
  dispose(...args) {
    if (args.length > 0) {
      // tf.dispose(tensors) habit: disposing the whole context instead would lose every model.
      throw invalid(
        'EagerContext.dispose() takes no argument: it releases the whole context, every model and tensor. ' +
          "To dispose tensors use dispose(tensors) from 'eager-wasm' (as tf.dispose) or tensor.dispose()",
      );
    }
    let deferred = false;
    for (const load of this._loads) {
      load.controller.abort();
      if (load.restoring) {
        load.disposeAfter = true;
        deferred = true;
      }
    }
    // Called from onProgress while wasm restores weights: the load disposes the context after.
    if (deferred) return;
    const w = this._w;
    if (w instanceof DisposedContext) return;
    callWasm(() => w.dispose());
    // Give the wasm-side object back now (not when the wrapper is collected), so that heap in use
    // returns to where it was before the context was made.
    this._w = new DisposedContext(w.id);
    callWasm(() => w.free());
  }
}

/** What a disposed context's calls reach: each fails as the runtime's own disposed context does. */
class DisposedContext {
  constructor(id) {
    this.id = id;
    this.isDisposed = true;
  }

  dispose() {}
}
for (const m of ['execute', 'executeNoAttrs', 'tensor', 'memory', 'cacheStats', 'cacheOptions', 'setCacheOptions', 'clearCache', 'resetCache', 'loadModel', 'loadModelStaged']) {
  DisposedContext.prototype[m] = () => {
    throw new EagerError('FailedPrecondition', 'this EagerContext has been disposed; create a new one');
  };
}

/**
 * When a load failed because the model.json is of the other format (a layers model given to
 * loadGraphModel, or a graph model to loadLayersModel), an error that says which call to make;
 * else null. Runs only after a failure, so a successful load never decodes the text twice.
 */
function wrongLoader(e, modelJson, layers) {
  if (!(e instanceof EagerError) || e.code === 'Cancelled' || e.code === 'ResourceExhausted') return null;
  let format;
  try {
    const text = typeof modelJson === 'string' ? modelJson : new TextDecoder().decode(modelJson);
    format = /"format"\s*:\s*"([^"]{0,40})"/.exec(text)?.[1];
  } catch {
    return null;
  }
  if (!layers && format === 'layers-model') {
    return new EagerError(
      'InvalidArgument',
      'this model.json is a layers model (format: layers-model, a Keras model); load it with ' +
        'ctx.loadLayersModel(), after `await init({ layers: true })`',
      { cause: e },
    );
  }
  if (layers && format === 'graph-model') {
    return new EagerError('InvalidArgument', 'this model.json is a graph model (format: graph-model); load it with ctx.loadGraphModel()', {
      cause: e,
    });
  }
  return null;
}

/** `loadGraphModel()` options, read once. */
function loadOptions(options) {
  if (options === undefined || options === null) return { onProgress: null, fetchFn: globalThis.fetch };
  try {
    if (typeof options !== 'object') throw invalid('loadGraphModel() options must be an object');
    const onProgress = options.onProgress;
    const fetchFn = options.fetch;
    return {
      onProgress: typeof onProgress === 'function' ? onProgress : null,
      fetchFn: fetchFn === undefined || fetchFn === null ? globalThis.fetch : fetchFn,
    };
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`loadGraphModel() options could not be read: ${messageOf(e)}`, e);
  }
}

function cancelled(cause) {
  return new EagerError(
    'Cancelled',
    'the load was cancelled: its EagerContext was disposed',
    cause === undefined ? undefined : { cause },
  );
}

