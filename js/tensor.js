// Tensor: a handle to a tensor in wasm memory, its backup release on garbage collection, and the
// conversion of JS values (typed arrays, nested arrays, scalars) to typed arrays of a dtype.

import { tensorData, tensorDispose, tensorIsLive, tensorReadInto } from './eager_wasm.js';
import { EagerError, STACK_OP, callWasm } from './errors.js';
import { MAX_RANK, describe, dimsOf, freshView, invalid, isStackOverflow, messageOf, typedArrayKind } from './snapshot.js';

// By the runtime's dtype code (src/bindings/tensor.rs dtype_code).
export const DTYPES = ['float32', 'int32', 'int64', 'bool', 'resource', 'uint8', 'complex64', 'string'];


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
    if (!t._released) tensorRegistry.register(t, handleOf(t));
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

/**
 * The handle of a Tensor made by this module, else undefined: a brand check (a private field) that
 * no Proxy, look-alike object or subclass getter passes, and that runs no caller code.
 */
export let handleOf;

export class Tensor {
  #handle;

  static {
    handleOf = (t) => (t !== null && typeof t === 'object' && #handle in t ? t.#handle : undefined);
  }

  /** @internal use ctx.tensor() or ctx.execute() */
  constructor(ctx, handle, dtype, shape) {
    this.context = ctx;
    this.#handle = handle;
    this.dtype = dtype;
    this.shape = shape;
    /** @internal set by dispose() (a hint for deferred registration; isDisposed asks the runtime) */
    this._released = false;
    track(this);
  }

  /** @internal the runtime's handle of this tensor */
  get handle() {
    return this.#handle;
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
    const h = this.#handle;
    return !callWasm(() => tensorIsLive(h), STACK_OP);
  }

  /**
   * A copy of the values: Float32Array, Int32Array, BigInt64Array (int64), Uint8Array (bool,
   * uint8), for complex64 a Float32Array of 2 * size floats, real and imaginary parts
   * interleaved (as TF.js), for string an array of strings (each element's bytes decoded as
   * UTF-8, invalid sequences as U+FFFD; bytesSync() has the exact bytes).
   */
  dataSync() {
    const h = this.#handle;
    const d = callWasm(() => tensorData(h), STACK_OP);
    if (this.dtype !== 'string') return d;
    const decoder = new TextDecoder();
    return unpackStrings(d).map((b) => decoder.decode(b));
  }

  /** A string tensor's elements as their exact bytes (one Uint8Array each), as TF.js holds them. */
  bytesSync() {
    if (this.dtype !== 'string') throw invalid(`bytesSync: a ${this.dtype} tensor has no string elements; use dataSync()`);
    const h = this.#handle;
    return unpackStrings(callWasm(() => tensorData(h), STACK_OP));
  }

  async bytes() {
    return this.bytesSync();
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
    const kind = typedArrayKind(target);
    if (kind === undefined) {
      const want = READ_INTO[this.dtype] ?? 'typed array';
      throw invalid(`readInto: a ${this.dtype} tensor reads into a ${want}, got ${describe(target)}`);
    }
    // A fresh view: Rust reads its length and copies into it with no caller code in between.
    const view = freshView(target, kind, 'the readInto target');
    const h = this.#handle;
    callWasm(() => tensorReadInto(h, view), STACK_OP);
    return target;
  }

  /**
   * The values as nested arrays (numbers, bigints for int64, booleans for bool, strings for
   * string). complex64 as TF.js gives it: the innermost rows hold interleaved (real, imaginary)
   * pairs, twice as long as the last dim; a scalar gives its real part.
   */
  arraySync() {
    const d = this.dataSync();
    const flat = this.dtype === 'bool' ? Array.from(d, (x) => x !== 0) : d instanceof Array ? d : Array.from(d);
    if (this.dtype === 'complex64') {
      if (this.shape.length === 0) return flat[0];
      const shape = this.shape.slice();
      shape[shape.length - 1] *= 2;
      return nest(flat, shape, 0, 0)[0];
    }
    return nest(flat, this.shape, 0, 0)[0];
  }

  async array() {
    return this.arraySync();
  }

  /** Releases the tensor's memory. Idempotent. */
  dispose() {
    const h = this.#handle;
    callWasm(() => tensorDispose(h), STACK_OP);
    this._released = true;
  }

  /**
   * The values laid out by dimension, as TF.js prints them: dims longer than 20 show their first
   * and last 3 entries around '...'; `verbose` adds dtype, rank and shape.
   */
  toString(verbose = false) {
    const head = verbose
      ? `Tensor\n  dtype: ${this.dtype}\n  rank: ${this.rank}\n  shape: [${this.shape.join(',')}]\n  values:\n`
      : 'Tensor\n';
    if (this.isDisposed) return `${head}    (disposed)`;
    if (this.dtype === 'resource') return `${head}    (a resource handle)`;
    let data = this.dataSync();
    if (this.dtype === 'complex64') {
      // One cell per element, as TF.js prints it: `re + imj`.
      const pairs = data;
      data = Array.from({ length: pairs.length / 2 }, (_, i) => `${formatValue(pairs[2 * i], 'float32')} + ${formatValue(pairs[2 * i + 1], 'float32')}j`);
    }
    return head + formatValues(data, this.dtype, this.shape, '    ');
  }

  /** Logs `toString(verbose)` to the console. */
  print(verbose = false) {
    console.log(this.toString(verbose));
  }

  /** Node's `util.inspect` (and so `console.log(t)`): the values, not the object's fields. */
  [Symbol.for('nodejs.util.inspect.custom')]() {
    return this.toString();
  }
}

/** Dims longer than this show only their first and last FORMAT_EDGE entries (as TF.js does). */
const FORMAT_LIMIT = 20;
const FORMAT_EDGE = 3;

function formatValue(v, dtype) {
  if (dtype === 'bool') return v ? 'true' : 'false';
  if (dtype === 'complex64') return v; // already rendered
  // TF.js's rendering: 7 decimals at most, trailing zeros dropped.
  if (dtype === 'float32') return Number.isFinite(v) ? String(parseFloat(v.toFixed(7))) : String(v);
  return String(v);
}

/** Nested rows of `data` (row-major, `shape`), each line indented by `indent`. */
function formatValues(data, dtype, shape, indent) {
  if (shape.length === 0) return indent + formatValue(data[0], dtype);
  const strides = [];
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = acc;
    acc *= shape[i];
  }
  const shown = (n) =>
    n > FORMAT_LIMIT
      ? [...Array(FORMAT_EDGE).keys(), -1, ...Array.from({ length: FORMAT_EDGE }, (_, i) => n - FORMAT_EDGE + i)]
      : [...Array(n).keys()];
  const cells = [];
  const collect = (dim, offset) => {
    for (const i of shown(shape[dim])) {
      if (dim === shape.length - 1) cells.push(i < 0 ? '...' : formatValue(data[offset + i], dtype));
      else if (i >= 0) collect(dim + 1, offset + i * strides[dim]);
    }
  };
  collect(0, 0);
  const width = Math.max(0, ...cells.filter((c) => c !== '...').map((c) => c.length));
  let next = 0;
  const render = (dim, offset, pad) => {
    const parts = [];
    for (const i of shown(shape[dim])) {
      if (dim === shape.length - 1) {
        const c = cells[next++];
        parts.push(c === '...' ? c : c.padEnd(width));
      } else if (i < 0) parts.push('...');
      else parts.push(render(dim + 1, offset + i * strides[dim], `${pad} `));
    }
    const sep = dim === shape.length - 1 ? ', ' : `,\n${'\n'.repeat(shape.length - dim - 2)}${pad} `;
    return `[${parts.join(sep)}]`;
  };
  return indent + render(0, 0, indent);
}

/** The typed array kind readInto() copies each dtype into. */
const READ_INTO = { float32: 'Float32Array', int32: 'Int32Array', int64: 'BigInt64Array', bool: 'Uint8Array', complex64: 'Float32Array' };

/** The elements of a packed string buffer (each a 4-byte little-endian length, then the bytes). */
function unpackStrings(packed) {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const out = [];
  for (let p = 0; p < packed.length; ) {
    const len = view.getUint32(p, true);
    out.push(packed.slice(p + 4, p + 4 + len));
    p += 4 + len;
  }
  return out;
}

/**
 * String elements (strings, encoded as UTF-8, or Uint8Arrays of raw bytes) packed as the runtime
 * reads them: a 4-byte little-endian length, then the bytes, per element.
 */
function packStrings(flat) {
  const encoder = new TextEncoder();
  const parts = flat.map((x, i) => {
    if (typeof x === 'string') return encoder.encode(x);
    if (typedArrayKind(x) === 'Uint8Array') return freshView(x, 'Uint8Array', 'a string element');
    throw cannot('string', i, x, ' (a string or a Uint8Array of bytes is needed)');
  });
  const out = new Uint8Array(parts.reduce((n, b) => n + 4 + b.length, 0));
  const view = new DataView(out.buffer);
  let p = 0;
  for (const b of parts) {
    view.setUint32(p, b.length, true);
    out.set(b, p + 4);
    p += 4 + b.length;
  }
  return out;
}

/** Nested plain arrays of string elements (strings or Uint8Arrays, which are leaves here) flattened. */
function flattenStrings(values) {
  const shape = [];
  for (let level = values; Array.isArray(level); level = level[0]) {
    if (shape.length === MAX_RANK) throw invalid(`nested arrays are deeper than the largest rank, ${MAX_RANK}`);
    shape.push(level.length);
  }
  // Checked before walking: a Proxy can claim any length.
  if (shape.reduce((a, b) => a * b, 1) > MAX_NESTED) {
    throw invalid(`nested arrays of shape [${shape.join(', ')}] hold more than ${MAX_NESTED} values`);
  }
  const flat = [];
  const walk = (v, dim) => {
    if (dim === shape.length) {
      if (Array.isArray(v)) throw badNesting(shape);
      flat.push(v);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[dim]) throw badNesting(shape);
    for (let i = 0; i < shape[dim]; i++) walk(v[i], dim + 1);
  };
  walk(values, 0);
  return [flat, shape];
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
  // uint8 crosses into wasm as a Uint8ClampedArray (a Uint8Array there means bool).
  uint8: Uint8ClampedArray,
  // Interleaved (real, imaginary) pairs; the runtime is told the dtype (a Float32Array alone is float32).
  complex64: Float32Array,
};
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * The dtype a typed array of kind `kind` ('Float32Array', ...) makes by default, as in TF.js: the
 * integer arrays (Uint8Array and Uint8ClampedArray too: pixel bytes) make int32.
 */
function dtypeOfKind(kind) {
  if (kind === 'Float32Array' || kind === 'Float64Array') return 'float32';
  if (kind === 'BigInt64Array' || kind === 'BigUint64Array') return 'int64';
  return 'int32';
}

function dtypeOfValue(v) {
  return typeof v === 'boolean' ? 'bool' : typeof v === 'bigint' ? 'int64' : 'float32';
}

/**
 * `ctx.tensor()`'s arguments read completely into `{ typed, dims, dtype }`: a typed array of the
 * dtype (a fresh view of the caller's memory, or a converted copy) and a plain array of dims.
 */
export function tensorValues(values, shape, dtype) {
  if (dtype === 'string' || ((dtype === undefined || dtype === null) && firstLeafIsString(values))) {
    try {
      const [flat, inferred] = flattenStrings(values);
      const dims = shape === undefined || shape === null ? inferred : dimsOf(shape, 'shape');
      return { typed: packStrings(flat), dims, dtype: 'string' };
    } catch (e) {
      throw e instanceof EagerError ? e : invalid(`the string values could not be read: ${messageOf(e)}`, e);
    }
  }
  if (dtype !== undefined && dtype !== null && (typeof dtype !== 'string' || !hasOwn(TYPED, dtype))) {
    const shown = typeof dtype === 'string' ? `'${dtype}'` : `a ${typeof dtype}`;
    throw invalid(`unsupported dtype ${shown} (supported: ${Object.keys(TYPED).join(', ')}, string)`);
  }
  let flat;
  let inferred;
  const kind = typedArrayKind(values);
  if (kind !== undefined) {
    flat = freshView(values, kind, 'tensor values');
    inferred = [flat.length];
    dtype ??= dtypeOfKind(kind);
  } else if (isArrayOrFalse(values)) {
    [flat, inferred] = flatten(values);
    dtype ??= dtypeOfValue(flat[0]);
  } else if (typeof values === 'number' || typeof values === 'boolean' || typeof values === 'bigint') {
    flat = [values];
    inferred = [];
    dtype ??= dtypeOfValue(values);
  } else {
    throw invalid(
      `tensor values must be a typed array, nested arrays or a number, got ${values === null ? 'null' : typeof values}`,
    );
  }
  const typed = toTyped(flat, kind, dtype);
  let dims;
  if (shape !== undefined && shape !== null) dims = dimsOf(shape, 'shape');
  else dims = dtype === 'complex64' ? complexDims(inferred, typed.length) : inferred;
  return { typed, dims, dtype };
}

/**
 * The logical shape of complex64 values laid out as `arraySync()` gives them: the innermost rows
 * hold (real, imaginary) pairs, so the last dim is half their length. A lone number cannot be a
 * complex value.
 */
function complexDims(inferred, length) {
  if (inferred.length === 0 || inferred[inferred.length - 1] % 2 !== 0) {
    throw invalid(
      `complex64 values are (real, imaginary) pairs, interleaved: ${length} value${length === 1 ? '' : 's'} cannot be read as pairs`,
    );
  }
  const dims = inferred.slice();
  dims[dims.length - 1] /= 2;
  return dims;
}

/** Whether `values` is a string or nested plain arrays whose first element is one. */
function firstLeafIsString(values) {
  let v = values;
  try {
    // Bounded like nested numbers' rank; a getter or Proxy may throw while being read.
    for (let depth = 0; isArrayOrFalse(v) && depth <= MAX_RANK; depth++) v = v[0];
  } catch (e) {
    throw isStackOverflow(e) ? e : invalid(`the values could not be read: ${messageOf(e)}`, e);
  }
  return typeof v === 'string';
}

/** Array.isArray, false for a revoked Proxy (which makes it throw). */
function isArrayOrFalse(v) {
  try {
    return Array.isArray(v);
  } catch {
    return false;
  }
}

/** Most values nested arrays may hold (the per-tensor element limit on wasm32). */
const MAX_NESTED = 2 ** 28 - 1;

/** A level of nesting: an array, or a typed array as a row (a fresh view); else null. */
function rowOf(v) {
  if (Array.isArray(v)) return v;
  const kind = typedArrayKind(v);
  return kind === undefined ? null : freshView(v, kind, 'a typed-array row');
}

/**
 * Flattens nested arrays (whose innermost rows may be typed arrays), checking they are
 * rectangular; returns [flat, shape].
 */
function flatten(values) {
  try {
    const shape = [];
    let level = values;
    for (let row = rowOf(level); row !== null; row = rowOf(level)) {
      if (shape.length === MAX_RANK) throw invalid(`nested arrays are deeper than the largest rank, ${MAX_RANK}`);
      shape.push(row.length);
      level = row[0];
    }
    // Checked before walking: a Proxy can claim any length.
    if (shape.reduce((a, b) => a * b, 1) > MAX_NESTED) {
      throw invalid(`nested arrays of shape [${shape.join(', ')}] hold more than ${MAX_NESTED} values`);
    }
    const flat = [];
    const walk = (v, dim) => {
      const row = rowOf(v);
      if (dim === shape.length) {
        if (row !== null) throw badNesting(shape);
        flat.push(v);
        return;
      }
      if (row === null || row.length !== shape[dim]) throw badNesting(shape);
      for (let i = 0; i < shape[dim]; i++) walk(row[i], dim + 1);
    };
    walk(values, 0);
    return [flat, shape];
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`the nested arrays could not be read: ${messageOf(e)}`, e);
  }
}

function badNesting(shape) {
  return invalid(`nested arrays are not rectangular (expected shape [${shape.join(', ')}] from the first elements)`);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function cannot(dtype, i, x, why) {
  return invalid(`cannot make a ${dtype} tensor: element ${i} is ${typeof x === 'bigint' ? `${x}n` : describe(x)}${why}`);
}

/**
 * Each dtype's conversion of one element, exact or an error: numbers (and bigints) for float32
 * (bigints only where exact); integers in range for int32 and int64; booleans, or numbers by
 * truth, for bool. A string, null, an object or another type than the first element's is refused.
 */
const ELEMENT = {
  complex64(x, i) {
    return ELEMENT.float32(x, i);
  },
  float32(x, i) {
    if (typeof x === 'number') return x;
    if (typeof x === 'bigint' && x >= -(2n ** 53n) && x <= 2n ** 53n) return Number(x);
    throw cannot('float32', i, x, typeof x === 'bigint' ? ' (not exact as a number)' : ' (a number is needed)');
  },
  int32(x, i) {
    const n = typeof x === 'bigint' && x >= INT32_MIN && x <= INT32_MAX ? Number(x) : x;
    if (typeof n === 'number' && Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX) return n;
    throw cannot('int32', i, x, ' (an integer from -2^31 to 2^31-1 is needed)');
  },
  int64(x, i) {
    const b = typeof x === 'bigint' ? x : typeof x === 'number' && Number.isInteger(x) ? BigInt(x) : null;
    if (b !== null && b >= INT64_MIN && b <= INT64_MAX) return b;
    throw cannot('int64', i, x, ' (an integer from -2^63 to 2^63-1 is needed)');
  },
  uint8(x, i) {
    if (typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 255) return x;
    throw cannot('uint8', i, x, ' (an integer from 0 to 255 is needed)');
  },
  bool(x, i) {
    if (typeof x === 'boolean') return x ? 1 : 0;
    if (typeof x === 'number') return x !== 0 ? 1 : 0;
    throw cannot('bool', i, x, ' (a boolean is needed)');
  },
};

/**
 * `values` (a fresh typed array of kind `kind`, or a plain array of what the caller nested) as a
 * typed array of `dtype`, every element converted exactly or refused: no silent NaN, no wrapping.
 */
function toTyped(values, kind, dtype) {
  const T = TYPED[dtype];
  if (kind === T.name) return values;
  // Bytes stay bytes: a (fresh) Uint8Array view seen as uint8 without a copy.
  if (dtype === 'uint8' && kind === 'Uint8Array') {
    return new Uint8ClampedArray(values.buffer, values.byteOffset, values.length);
  }
  const convert = ELEMENT[dtype];
  const out = new T(values.length);
  for (let i = 0; i < values.length; i++) out[i] = convert(values[i], i);
  return out;
}
