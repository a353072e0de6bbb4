// The boundary rule: everything a caller passes is read completely, here in JS, before wasm is
// entered, into plain values (numbers, strings, fresh arrays and objects, typed arrays made by this
// module over the caller's buffer). Wasm then never meets a getter, a Proxy, a subclass override or
// a callback, so nothing the caller does can throw while Rust holds a borrow. A failed read is an
// EagerError('InvalidArgument') with the original error as its cause.
//
// Typed arrays are recognised by their internal slot (the %TypedArray%.prototype[@@toStringTag]
// getter answers undefined for anything else, a Proxy included), never by duck typing or
// instanceof, and read through the intrinsic getters (`length`, `buffer`, `byteOffset`), which no
// subclass or own property can override.

import { EagerError } from './errors.js';

const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const TA_TAG = getter(TypedArrayProto, Symbol.toStringTag);
const TA_LENGTH = getter(TypedArrayProto, 'length');
const TA_BUFFER = getter(TypedArrayProto, 'buffer');
const TA_OFFSET = getter(TypedArrayProto, 'byteOffset');
const AB_LENGTH = getter(ArrayBuffer.prototype, 'byteLength');
const SAB_LENGTH = typeof SharedArrayBuffer === 'function' ? getter(SharedArrayBuffer.prototype, 'byteLength') : null;
const DV_BUFFER = getter(DataView.prototype, 'buffer');
const DV_OFFSET = getter(DataView.prototype, 'byteOffset');
const DV_LENGTH = getter(DataView.prototype, 'byteLength');
const isArray = Array.isArray;
const objectKeys = Object.keys;

/** Typed array constructors by their [[TypedArrayName]]. */
export const TYPED_ARRAYS = {
  Float32Array,
  Float64Array,
  Int8Array,
  Int16Array,
  Int32Array,
  Uint8Array,
  Uint8ClampedArray,
  Uint16Array,
  Uint32Array,
  BigInt64Array,
  BigUint64Array,
};

/** An InvalidArgument EagerError; `cause` is the error a read threw, if any. */
export function invalid(message, cause) {
  // Reading arguments can overflow the JS stack in deep recursion: that is no bad argument.
  const code = isStackOverflow(cause) ? 'ResourceExhausted' : 'InvalidArgument';
  return new EagerError(code, message, cause === undefined ? undefined : { cause });
}

/**
 * True for the JS engine's stack overflow (V8's and Safari's RangeError, Firefox's "too much
 * recursion").
 */
export function isStackOverflow(e) {
  return e instanceof RangeError ? /call stack/i.test(messageOf(e)) : e instanceof Error && /too much recursion/i.test(messageOf(e));
}

/** The [[TypedArrayName]] of a real typed array ('Float32Array', ...), else undefined. */
export function typedArrayKind(v) {
  return v !== null && typeof v === 'object' ? TA_TAG.call(v) : undefined;
}

/** True if `buffer` (an ArrayBuffer from an intrinsic getter) is detached. */
function isDetached(buffer) {
  if (SAB_LENGTH !== null && !isArrayBuffer(buffer)) return false; // shared: never detached
  if (AB_LENGTH.call(buffer) !== 0) return false;
  try {
    new Uint8Array(buffer); // eslint-disable-line no-new
    return false;
  } catch {
    return true;
  }
}

function isArrayBuffer(b) {
  try {
    AB_LENGTH.call(b);
    return true;
  } catch {
    return false;
  }
}

function isSharedArrayBuffer(b) {
  if (SAB_LENGTH === null) return false;
  try {
    SAB_LENGTH.call(b);
    return true;
  } catch {
    return false;
  }
}

/**
 * A fresh, fixed-length typed array of the same kind over the same memory as `v` (a real typed
 * array, checked by the caller), or an error if its buffer is detached (e.g. transferred to a
 * worker). Its length cannot change before wasm has read it: no caller code runs in between.
 */
export function freshView(v, kind, what) {
  const length = TA_LENGTH.call(v);
  const buffer = TA_BUFFER.call(v);
  if (length === 0 && isDetached(buffer)) {
    throw invalid(`${what} is a ${kind} whose buffer is detached (transferred to a worker?)`);
  }
  return new TYPED_ARRAYS[kind](buffer, TA_OFFSET.call(v), length);
}

/** A fresh Uint8Array over the bytes of an ArrayBuffer, SharedArrayBuffer, typed array or DataView. */
export function bytesOf(b, what) {
  const kind = typedArrayKind(b);
  if (kind !== undefined) {
    const view = freshView(b, kind, what);
    return new Uint8Array(TA_BUFFER.call(view), TA_OFFSET.call(view), view.byteLength);
  }
  if (b !== null && typeof b === 'object') {
    if (isArrayBuffer(b)) {
      if (isDetached(b)) throw invalid(`${what} is a detached ArrayBuffer (transferred to a worker?)`);
      return new Uint8Array(b);
    }
    if (isSharedArrayBuffer(b)) return new Uint8Array(b);
    try {
      const buffer = DV_BUFFER.call(b);
      return new Uint8Array(buffer, DV_OFFSET.call(b), DV_LENGTH.call(b));
    } catch {
      // not a DataView (or a detached one): reported below
    }
  }
  return null;
}

/** True for an ArrayBuffer, SharedArrayBuffer, typed array or DataView (no caller code runs). */
export function isBufferLike(b) {
  if (typedArrayKind(b) !== undefined) return true;
  if (b === null || typeof b !== 'object') return false;
  if (isArrayBuffer(b) || isSharedArrayBuffer(b)) return true;
  try {
    DV_BUFFER.call(b);
    return true;
  } catch {
    return false;
  }
}

/** The largest rank TensorFlow allows (and this runtime). */
export const MAX_RANK = 254;

/** A shape as a fresh array of numbers (each a number; Rust checks they are non-negative integers). */
export function dimsOf(shape, what) {
  let dims;
  try {
    if (!isArray(shape)) throw invalid(`${what} must be an array of integers`);
    const n = shape.length;
    if (n > MAX_RANK) throw invalid(`${what} has rank ${n}; the largest rank is ${MAX_RANK}`);
    dims = new Array(n);
    for (let i = 0; i < n; i++) dims[i] = shape[i];
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`${what} could not be read: ${messageOf(e)}`, e);
  }
  for (let i = 0; i < dims.length; i++) {
    if (typeof dims[i] !== 'number') {
      throw invalid(`${what} must hold numbers, got ${describe(dims[i])} at index ${i}`);
    }
  }
  return dims;
}

/** Longest list in attrs and options (a Proxy can claim any length). */
const MAX_LIST = 1 << 24;

/** Objects nested deeper than this in attrs and options are refused (the deepest legit is 3). */
const MAX_DEPTH = 8;

/**
 * A plain copy of attrs or options: primitives as they are, arrays and objects copied (own
 * enumerable string keys), typed arrays as fresh views; `tensorHandle(v)` turns a Tensor into the
 * `{ handle }` Rust reads (or returns undefined for anything else). Getters run here, once; a
 * throwing one, a Proxy trap, a function or a symbol fail with InvalidArgument.
 */
export function plainCopy(v, what, tensorHandle) {
  try {
    return copy(v, what, tensorHandle, 0);
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`${what} could not be read: ${messageOf(e)}`, e);
  }
}

function copy(v, what, tensorHandle, depth) {
  switch (typeof v) {
    case 'number':
    case 'string':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return v;
    case 'object':
      break;
    default:
      throw invalid(`${what} must not be a ${typeof v}`);
  }
  if (v === null) return v;
  if (depth >= MAX_DEPTH) throw invalid(`${what} is nested too deeply`);
  // Arrays first (the common attr value), with their primitives copied inline.
  if (isArray(v)) {
    const n = v.length;
    if (n > MAX_LIST) throw invalid(`${what} holds a list of ${n} values (at most ${MAX_LIST})`);
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const x = v[i];
      out[i] = typeof x === 'number' || typeof x === 'string' ? x : copy(x, what, tensorHandle, depth + 1);
    }
    return out;
  }
  const handle = tensorHandle(v);
  if (handle !== undefined) return { handle };
  const kind = typedArrayKind(v);
  if (kind !== undefined) return freshView(v, kind, what);
  const out = {};
  const keys = objectKeys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const value = copy(v[k], what, tensorHandle, depth + 1);
    // A key named __proto__ stays a key (an assignment would set the prototype).
    if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out;
}

/** The message of whatever was thrown, without running caller code beyond a string conversion. */
export function messageOf(e) {
  try {
    if (e !== null && typeof e === 'object' && typeof e.message === 'string') return e.message;
    return String(e);
  } catch {
    return 'an unreadable error';
  }
}

/** A short description of a value for messages (runs no caller code). */
export function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint') return 'a bigint';
  if (typeof v === 'object') {
    try {
      return isArray(v) ? 'an array' : 'an object';
    } catch {
      return 'a revoked Proxy';
    }
  }
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a symbol';
  return `${typeof v} ${String(v)}`;
}
