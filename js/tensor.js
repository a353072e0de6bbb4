// Tensor: a handle to a tensor in wasm memory, its backup release on garbage collection, and the
// conversion of JS values (typed arrays, nested arrays, scalars) to typed arrays of a dtype.

import { tensorData, tensorDispose, tensorIsLive, tensorReadInto } from './eager_wasm.js';
import { EagerError, toEagerError } from './errors.js';

export const DTYPES = ['float32', 'int32', 'int64', 'bool', 'resource'];


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

export function dtypeOfTyped(v) {
  if (v instanceof Float32Array || v instanceof Float64Array) return 'float32';
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) return 'int64';
  if (v instanceof Uint8Array) return 'bool';
  return 'int32';
}

/** Flattens nested arrays, checking they are rectangular; returns [flat, shape]. */
export function flatten(values) {
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

export function toTyped(values, dtype) {
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

