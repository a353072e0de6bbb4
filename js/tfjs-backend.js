// The TensorFlow.js backend's storage and execution: TF.js tensors' data live as eager-wasm tensors
// in the wasm heap (one per dataId, with TF.js's reference counts), and a kernel runs TF ops by
// name through an EagerContext, so every TF.js kernel call goes through the kernel cache.
//
// String tensors are runtime string tensors (TF.js passes and reads their elements as
// Uint8Array[]); complex64 data is interleaved real and imaginary parts, as TF.js reads it.

import { DataStorage, KernelBackend, engine, util } from '@tensorflow/tfjs-core';
import { EagerContext } from './context.js';
import { tensorMarkWeight } from './eager_wasm.js';
import { EagerError, STACK_OP, callWasm } from './errors.js';
import { readOutputs } from './io.js';
import { opIdOf } from './ops.js';

/** The dtypes a TF.js tensor can have, all held by the runtime. */
const HELD = new Set(['float32', 'int32', 'bool', 'complex64', 'string']);
const sameShape = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);

let nextDataId = 0;
const EMPTY_BYTES = new Uint8Array(0);

/** What the backend keeps per dataId: the runtime tensor `t` (or, for a dtype the runtime does not
 * hold, the JS `values`), reshaped views of it, and for string data the indices TF.js left unset. */
const newEntry = (t, shape, dtype, refCount) => ({ t, values: null, shape: shape.slice(), dtype, refCount, views: null, unset: null });
/** Most constants the backend keeps (see `constants`). */
const CONSTANTS_KEPT = 256;

export class EagerWasmBackend extends KernelBackend {
  /** @param {object} [contextOptions] options of the EagerContext the backend runs on. */
  constructor(contextOptions) {
    super();
    // TF.js's multinomial with a seed gives the same sample on every call: its kernel is made
    // anew for each call (TF's kernel, kept in the cache, would go on with its stream).
    const cache = contextOptions?.cache ?? {};
    const exclude = [...(cache.exclude ?? []), 'Multinomial'];
    /** The EagerContext every kernel runs on: its cacheStats(), memory() and cache options. */
    this.context = new EagerContext({ ...contextOptions, cache: { ...cache, exclude } });
    this.data = new DataStorage(this, engine());
    /** Tensors made while a kernel runs, disposed when it ends. */
    this.scratch = [];
    /**
     * Small int32 and scalar tensors for attrs TF ops take as inputs (axes, shapes, sizes), kept
     * across kernels (at most CONSTANTS_KEPT; all dropped when full).
     */
    this.constants = new Map();
    /** Every stored entry, for dispose() (DataStorage cannot be walked). */
    this.entries = new Set();
  }

  // ---- storage ------------------------------------------------------------------------------

  write(values, shape, dtype) {
    const dataId = { id: nextDataId++ };
    this.move(dataId, values, shape, dtype, 1);
    return dataId;
  }

  move(dataId, values, shape, dtype, refCount) {
    const entry = newEntry(null, shape, dtype, refCount);
    if (HELD.has(dtype)) {
      // A tf.buffer of strings leaves unset elements out: kernels read them as '', and reading
      // this data back gives them unset again (holes), as TF.js's CPU backend does.
      if (dtype === 'string' && values != null) {
        const unset = [];
        values = Array.from(values, (v, i) => (v == null ? (unset.push(i), EMPTY_BYTES) : v));
        if (unset.length > 0) entry.unset = unset;
      }
      entry.t = this.context.tensor(values ?? zerosOf(dtype, util.sizeFromShape(shape)), shape, dtype);
      // Data written from JS is what TF.js apps hold as weights (a loaded model's, a layer's):
      // a matrix product or convolution that reads it as its weight operand packs it once.
      if (dtype === 'float32') {
        const h = entry.t.handle;
        callWasm(() => tensorMarkWeight(h), STACK_OP);
      }
    } else entry.values = values ?? [];
    this.data.set(dataId, entry);
    this.entries.add(entry);
  }

  readSync(dataId) {
    const entry = this.data.get(dataId);
    if (entry.t === null) return entry.values;
    if (entry.dtype !== 'string') return entry.t.dataSync();
    const bytes = entry.t.bytesSync();
    if (entry.unset !== null) for (const i of entry.unset) delete bytes[i];
    return bytes;
  }

  async read(dataId) {
    return this.readSync(dataId);
  }

  disposeData(dataId, force = false) {
    if (!this.data.has(dataId)) return true;
    const entry = this.data.get(dataId);
    entry.refCount--;
    if (!force && entry.refCount > 0) return false;
    releaseEntry(entry);
    this.entries.delete(entry);
    this.data.delete(dataId);
    return true;
  }

  refCount(dataId) {
    return this.data.has(dataId) ? this.data.get(dataId).refCount : 0;
  }

  incRef(dataId) {
    this.data.get(dataId).refCount++;
  }

  numDataIds() {
    return this.data.numDataIds();
  }

  /**
   * tf.memory() gets these fields: the runtime's exact report (`eagerWasm`: heap in use and peak,
   * tensors, kernel cache) beside TF.js's own counts.
   */
  memory() {
    return { unreliable: false, eagerWasm: this.context.memory() };
  }

  /** The kernel cache's statistics (tf.backend().cacheStats()). */
  cacheStats() {
    return this.context.cacheStats();
  }

  timerAvailable() {
    return true;
  }

  async time(f) {
    const start = performance.now();
    f();
    return { kernelMs: performance.now() - start };
  }

  floatPrecision() {
    return 32;
  }

  epsilon() {
    return 1e-7;
  }

  /** Releases every tensor the backend holds (tf.engine().reset(), tf.removeBackend()). */
  dispose() {
    for (const entry of this.entries) releaseEntry(entry);
    this.entries.clear();
    for (const t of this.constants.values()) t.dispose();
    this.constants.clear();
    this.endKernel();
    this.context.dispose();
  }

  // ---- execution ----------------------------------------------------------------------------

  /** The eager tensor holding `info`'s data, in `info`'s shape. */
  tensorOf(info) {
    const entry = this.data.get(info.dataId);
    if (entry.t === null) {
      throw new EagerError('Unimplemented', `eager-wasm's TF.js backend has no kernels for ${entry.dtype} tensors here`);
    }
    if (sameShape(entry.t.shape, info.shape)) return entry.t;
    // TF.js shares a dataId between tensors of one size and different shapes (reshapes): each
    // shape read gets a runtime view, kept with the data.
    const key = info.shape.join(',');
    entry.views ??= new Map();
    let v = entry.views.get(key);
    if (v === undefined) {
      [v] = this.runRaw('Reshape', [entry.t, this.constInt(info.shape)]);
      entry.views.set(key, v);
    }
    return v;
  }

  /** A kept constant `key`, made by `make()` the first time. */
  constant(key, make) {
    let t = this.constants.get(key);
    if (t === undefined) {
      if (this.constants.size >= CONSTANTS_KEPT) {
        // Disposed when the kernel ends: it may hold some of them already.
        for (const c of this.constants.values()) this.scratch.push(c);
        this.constants.clear();
      }
      t = make();
      this.constants.set(key, t);
    }
    return t;
  }

  /** An int32 tensor of `values`, a number (scalar) or a list (1-D): attrs TF takes as inputs. */
  constInt(values) {
    if (typeof values === 'number') return this.constant(`i${values}`, () => this.context.tensor(new Int32Array([values]), [], 'int32'));
    const list = Array.from(values);
    if (list.length > 16) {
      const t = this.context.tensor(Int32Array.from(list), [list.length], 'int32');
      this.scratch.push(t);
      return t;
    }
    return this.constant(`i[${list}]`, () => this.context.tensor(Int32Array.from(list), [list.length], 'int32'));
  }

  /** A scalar of `dtype`. */
  scalar(value, dtype = 'float32') {
    return this.constant(`${dtype}:${Object.is(value, -0) ? '-0' : value}`, () =>
      this.context.tensor(dtype === 'float32' ? new Float32Array([value]) : dtype === 'int32' ? new Int32Array([value]) : new Uint8Array([value ? 1 : 0]), [], dtype),
    );
  }

  /** `info` (a TensorInfo) cast to `dtype`, as an eager tensor disposed after the kernel. */
  cast(info, dtype) {
    const [t] = this.runRaw('Cast', [this.tensorOf(info)], { DstT: dtype });
    this.scratch.push(t);
    return t;
  }

  /** `info` as float32 (itself if it is). */
  asFloat(info) {
    return info.dtype === 'float32' ? info : this.cast(info, 'float32');
  }

  /** Runs TF op `op` on eager tensors; returns eager tensors (the caller owns them). */
  runRaw(op, inputs, attrs) {
    const ctx = this.context;
    return readOutputs(ctx, ctx._run(opIdOf(op), op, inputs, attrs));
  }

  /** An eager tensor as a TF.js TensorInfo (int64 and uint8 results become int32, as TF.js has them). */
  adopt(t) {
    if (t.dtype === 'int64' || t.dtype === 'uint8') {
      const c = this.runRaw('Cast', [t], { DstT: 'int32' })[0];
      t.dispose();
      t = c;
    }
    const dataId = { id: nextDataId++ };
    const entry = newEntry(t, t.shape, t.dtype, 1);
    this.data.set(dataId, entry);
    this.entries.add(entry);
    return { dataId, shape: t.shape.slice(), dtype: t.dtype };
  }

  /** Runs TF op `op` on TF.js tensors (TensorInfos or eager tensors); returns TensorInfos. */
  run(op, inputs, attrs) {
    const ts = inputs.map((x) => (isInfo(x) ? this.tensorOf(x) : x));
    return this.runRaw(op, ts, attrs).map((t) => this.adopt(t));
  }

  /** `run`'s first output. */
  run1(op, inputs, attrs) {
    return this.run(op, inputs, attrs)[0];
  }

  /** Disposes the kernel's temporaries (called when a kernel ends, thrown or not). */
  endKernel() {
    const s = this.scratch;
    if (s.length === 0) return;
    this.scratch = [];
    for (const t of s) t.dispose();
  }

  /** A TensorInfo for JS-held values (strings) or new values of a held dtype. */
  makeOutput(values, shape, dtype) {
    const dataId = this.write(values, shape, dtype);
    return { dataId, shape: shape.slice(), dtype };
  }
}

/** Disposes an entry's runtime tensor and its reshaped views. */
function releaseEntry(entry) {
  if (entry.t !== null) entry.t.dispose();
  if (entry.views !== null) for (const v of entry.views.values()) v.dispose();
}

const isInfo = (x) => x !== null && typeof x === 'object' && 'dataId' in x;

function zerosOf(dtype, n) {
  if (dtype === 'complex64') return new Float32Array(2 * n);
  if (dtype === 'string') return Array.from({ length: n }, () => new Uint8Array(0));
  return dtype === 'float32' ? new Float32Array(n) : dtype === 'int32' ? new Int32Array(n) : new Uint8Array(n);
}
