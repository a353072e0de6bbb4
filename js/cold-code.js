// The on-demand half of the split release build (scripts/cold-split): init() instantiates the
// primary module, which holds the code the profiled workload ran (dispatch, the vision models'
// kernels, model loading); every other function is a stub there, and the first call of one loads
// the cold module (rare ops, rare dtypes, most error paths) synchronously, on the same memory.
// loadGraphModel loads it ahead, asynchronously, for a model with an op outside HOT_OPS.
//
// This file imports nothing from the glue: the glue imports `loadColdCode` from it.

import { EagerError } from './errors.js';
import { HOT_OPS } from './hot-ops.js';

let primary = null; // the primary instance's exports, once init() has bound them
let url = null; // where the cold module is
let readFileSync = null; // Node's fs.readFileSync
let compiled = null; // the compiled cold module
let loading = null; // loadColdCodeAsync() under way
let stackTop = null; // the primary's shadow-stack pointer (its global __g0) while no wasm call runs
let epochAt = null; // the address of the bindings' borrow epoch (src/bindings/cell.rs)

/** Called by init() once the primary is instantiated; `coldUrlOf(fileName)` resolves the cold file. */
export function bindColdCode(exports, coldUrlOf, nodeReadFileSync) {
  primary = exports;
  const file = Object.keys(exports).find((k) => k.startsWith('__cold_file:'));
  url = file === undefined ? null : coldUrlOf(file.slice('__cold_file:'.length));
  readFileSync = nodeReadFileSync;
  // The split build exports the stack pointer (global 0, as LLVM lays them out) for the cold part.
  const sp = exports.__g0;
  const plausible = (v) => Number.isInteger(v) && v > 0 && v % 16 === 0 && v <= exports.memory.buffer.byteLength;
  if (sp instanceof WebAssembly.Global && plausible(sp.value)) stackTop = sp.value;
}

/** Called by init() with what initRuntime() returns: the address of the bindings' borrow epoch. */
export function bindBorrowEpoch(address) {
  epochAt = address >>> 0;
}

/** Whether the loaded build is split (false for unsplit builds: `npm run build -- --no-opt`). */
export function isSplit() {
  return primary !== null && primary.__cold_ready instanceof WebAssembly.Global;
}

/** Whether the cold module is instantiated. */
export function coldCodeLoaded() {
  return isSplit() && primary.__cold_ready.value === 1;
}

/**
 * Loads the cold module ahead of need, asynchronously (no synchronous request in a browser); a
 * no-op if it is loaded or the build is not split.
 */
export function loadColdCodeAsync() {
  if (!isSplit() || coldCodeLoaded()) return Promise.resolve();
  loading ??= (async () => {
    try {
      if (readFileSync !== null) {
        compiled = new WebAssembly.Module(readFileSync(url));
      } else {
        const response = await fetch(url);
        if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
        compiled = await WebAssembly.compile(await response.arrayBuffer());
      }
      if (!coldCodeLoaded()) {
        await WebAssembly.instantiate(compiled, { p: primary });
        markLoaded();
      }
    } catch (e) {
      throw unavailable(e, 'The call that needed it did not start');
    } finally {
      loading = null;
    }
  })();
  return loading;
}

/**
 * Whether a graph model.json (text or parsed) has an op the profiled workload did not run, so that
 * loading and running it likely needs the cold module.
 */
export function modelNeedsColdCode(modelJson) {
  if (!isSplit() || coldCodeLoaded()) return false;
  const text = modelJson instanceof Uint8Array ? new TextDecoder().decode(modelJson) : modelJson;
  if (typeof text === 'string') {
    for (const m of text.matchAll(/"op"\s*:\s*"([^"\\]*)"/g)) if (!HOT_OPS.has(m[1])) return true;
    return false;
  }
  try {
    const topology = text?.modelTopology;
    const nodes = [...(topology?.node ?? []), ...(topology?.library?.function ?? []).flatMap((f) => f.nodeDef ?? [])];
    return nodes.some((n) => !HOT_OPS.has(n?.op));
  } catch {
    return false; // a model object that cannot be read is reported by the load itself
  }
}

/**
 * Loads the cold module, synchronously, before a call into wasm that runs op `op` when its kernel
 * is not in the primary (an op outside HOT_OPS). A load that fails then fails the call before it
 * enters wasm, which leaves the runtime as it was: a failure inside a wasm call (the stubs' loader
 * below) abandons the frames under way, with what they held (the context's busy flag, stack). Each
 * call tries again, so the op works once the file can be read.
 */
export function ensureColdCodeFor(op) {
  if (primary === null || !isSplit() || coldCodeLoaded() || HOT_OPS.has(op)) return;
  load((e) => unavailable(e, `${op} needs it and did not run`));
}

/**
 * The primary's loader import: instantiates the cold module, which writes its functions into the
 * primary's cold table, then flags it ready. Synchronous because it runs inside a wasm call: in a
 * browser without a prefetched module it reads the file with a synchronous request.
 */
export function loadColdCode() {
  if (coldCodeLoaded()) return;
  if (primary === null) throw new EagerError('Internal', 'eager-wasm cold code was called before init() bound it');
  load((e) => unavailable(e, abandonCall() ? 'The call that needed it was abandoned' : null));
}

/**
 * Before the loader throws through the wasm frames under way (which run no cleanup): when they are
 * all of the running wasm (no JS callback made from wasm lies between them and the caller, so the
 * throw ends every one), puts the stack pointer back where an idle instance has it and moves the
 * borrow epoch on, so that what those frames held (a context's busy flag, the tensor table) is
 * free again. Returns whether it did.
 */
function abandonCall() {
  if (stackTop === null || epochAt === null || !(primary.__g0.value <= stackTop) || !outermostWasmCall()) return false;
  primary.__g0.value = stackTop;
  const epoch = new Uint32Array(primary.memory.buffer, epochAt, 1);
  epoch[0] = (epoch[0] + 1) >>> 0;
  return true;
}

/** Whether the current stack holds a single run of wasm frames (none under a JS callback). */
function outermostWasmCall() {
  const limit = Error.stackTraceLimit;
  let stack;
  try {
    Error.stackTraceLimit = Infinity;
    stack = new Error().stack;
  } finally {
    Error.stackTraceLimit = limit;
  }
  if (typeof stack !== 'string') return false;
  // V8 `wasm://wasm/...:wasm-function[i]`, Firefox `...wasm:wasm-function[i]`, Safari `[wasm code]`.
  const isWasm = (frame) => /wasm-function\[|\[wasm code\]|wasm:\/\//.test(frame);
  let runs = 0;
  let inWasm = false;
  for (const frame of stack.split('\n')) {
    const w = isWasm(frame);
    if (w && !inWasm) runs++;
    inWasm = w;
  }
  return runs === 1;
}

/** Reads (unless already compiled), compiles and instantiates the cold module; `fail` makes the error. */
function load(fail) {
  try {
    // A failed read or compile leaves `compiled` unset, so the next call reads the file again.
    compiled ??= new WebAssembly.Module(readFileSync !== null ? readFileSync(url) : fetchBytesSync(url));
    new WebAssembly.Instance(compiled, { p: primary });
    markLoaded();
  } catch (e) {
    throw fail(e);
  }
}

// Instantiating wrote the cold functions into the primary's cold table: the stubs may call them.
function markLoaded() {
  primary.__cold_ready.value = 1;
}

/** `before`: what did not start for want of the part; null when a wasm call failed midway. */
function unavailable(e, before) {
  const tail =
    before === null
      ? 'A call that needed it failed midway; the runtime may be unusable until it is reloaded.'
      : `${before}; the next call that needs it tries again.`;
  return new EagerError('Unavailable', `could not load eager-wasm's on-demand code: ${e?.message ?? e}. ${tail}`, {
    cause: e,
  });
}

// A synchronous GET of binary data: responseType cannot be set on a synchronous request in a
// window, so the bytes come through a text response decoded byte for byte (x-user-defined).
function fetchBytesSync(from) {
  const xhr = new XMLHttpRequest();
  xhr.open('GET', String(from), false);
  xhr.overrideMimeType('text/plain; charset=x-user-defined');
  xhr.send();
  if (xhr.status !== 200 && xhr.status !== 0) throw new Error(`${xhr.status} ${xhr.statusText}`);
  const text = xhr.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}
