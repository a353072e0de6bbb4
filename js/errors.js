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

/** Runs `f` (a call into wasm), rethrowing its failure as an EagerError. */
export function callWasm(f) {
  try {
    return f();
  } catch (e) {
    throw toEagerError(e);
  }
}
