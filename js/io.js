// The scratch buffer: a Float64Array view of wasm memory through which tensor handles, dims and
// output records cross the boundary (no strings, no wasm-bindgen objects on the execute path).

import { ioLength, ioReserve } from './eager_wasm.js';
import { STACK_OP, callWasm } from './errors.js';
import { wasmMemory } from './runtime.js';
import { DTYPES, Tensor } from './tensor.js';

const EMPTY_IO = new Float64Array(0);
let io = EMPTY_IO;

/**
 * Counts ioFor() calls: a caller that reads caller-controlled values after taking the buffer checks
 * it is unchanged, to know no getter ran an op that overwrote the buffer meanwhile.
 */
export let ioWrites = 0;

/** The scratch buffer's usual length (as in Rust): a call that needed more gives it back after. */
const IO_KEEP = 256;

/**
 * A view of the scratch buffer with room for `n` f64s to write, rebuilt after memory growth; a
 * buffer left oversized by an earlier call is shrunk back first.
 */
export function ioFor(n) {
  ioWrites++;
  // A view over a buffer detached by memory.grow() has length 0.
  if (io.length < n || io.length === 0 || (io.length > IO_KEEP && n <= IO_KEEP)) {
    const ptr = callWasm(() => ioReserve(n, true), STACK_OP);
    io = new Float64Array(wasmMemory().buffer, ptr, ioLength());
  }
  return io;
}

/** A view of the scratch buffer holding `n` f64s written by wasm (never shrunk: they are read). */
function ioRead(n) {
  if (io.length < n || io.length === 0) {
    const ptr = callWasm(() => ioReserve(n, false), STACK_OP);
    io = new Float64Array(wasmMemory().buffer, ptr, ioLength());
  }
  return io;
}

/** Parses output records `[handle, dtype, rank, dims...]` written by execute/predict. */
export function readOutputs(ctx, len) {
  const v = ioRead(len);
  const out = [];
  for (let p = 0; p < len; p += 3 + v[p + 2]) out.push(tensorAt(ctx, v, p));
  return out;
}

/** The only output of a single-output op (`readOutputs(ctx, len)[0]` without the array). */
export function readFirst(ctx, len) {
  const v = ioRead(len);
  return len === 3 + v[2] ? tensorAt(ctx, v, 0) : readOutputs(ctx, len)[0];
}

/** The tensor of the output record at `v[p]`. */
function tensorAt(ctx, v, p) {
  const rank = v[p + 2];
  const shape = new Array(rank);
  for (let i = 0; i < rank; i++) shape[i] = v[p + 3 + i];
  return new Tensor(ctx, v[p], DTYPES[v[p + 1]], shape);
}

