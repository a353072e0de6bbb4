// EagerError and the one helper that turns whatever a wasm call throws into one.

/** Every failure of eager-wasm: `.code` is the TensorFlow status code name. */
export class EagerError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'EagerError';
    this.code = code;
  }
}

export function toEagerError(e) {
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

/*
 * The JS stack guard. Wasm frames run on the JS stack: a stack overflow inside wasm (JS recursion
 * that calls eager-wasm at its deepest point) would abandon Rust mid-call, with borrows and
 * half-made state left behind for every later call. So each synchronous call into wasm first
 * checks, in JS, that the stack has room for the deepest call it can make: a probe recursion that
 * touches that much stack below the caller and returns. If the probe overflows, the call fails
 * with ResourceExhausted before any wasm runs, and nothing has changed.
 *
 * The room a call needs was measured in Node 20 (JS wrapper frames plus wasm frames, right after
 * start-up, while wasm still runs baseline code with its larger frames): under 2 KB to read a
 * tensor or run an add, 3.3 KB to dispose one, 4 KB for a conv2d through ctx.ops, 4.5 KB for a
 * small CNN's predict. The probes take 1.5x that and more. Each probe frame passes 24 arguments,
 * about 260 bytes of stack a frame in V8, the lowest cost per byte measured (about 25 ns per KB):
 * the guard costs about 0.15 us a call, the price of a context that survives deep recursion.
 */

/** Probe frames for a call that runs one op or reads, writes or frees one tensor: about 6 KB. */
export const STACK_OP = 24;
/**
 * Probe frames for a call that runs a model (the executor, control flow, every kernel) or builds JS
 * objects from wasm (memory(), cacheStats(): each property set is a JS call whose string decoding
 * runs in the engine's C++, measured at up to 25 KB): about 64 KB.
 */
export const STACK_DEEP = 256;

// prettier-ignore
function probe(n, a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q, r, s, t, u, v, w, x, y) {
  return n <= 0 ? 0 : 1 + probe(n - 1, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q, r, s, t, u, v, w, x, y, a);
}

/** Throws ResourceExhausted unless the JS stack has room for `frames` probe frames. */
export function ensureStack(frames, what) {
  try {
    probe(frames, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  } catch (e) {
    throw new EagerError(
      'ResourceExhausted',
      `the JS stack is nearly full (deep recursion?), so eager-wasm did not start ${what}; nothing changed`,
      { cause: e },
    );
  }
}

/**
 * Runs `f` (a call into wasm) once the stack has room for `frames` probe frames (by default the
 * deep probe; the hot paths pass STACK_OP), rethrowing its failure as an EagerError.
 */
export function callWasm(f, frames = STACK_DEEP) {
  ensureStack(frames, 'the call');
  try {
    return f();
  } catch (e) {
    throw toEagerError(e);
  }
}
