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

/** Called by init() once the primary is instantiated; `coldUrlOf(fileName)` resolves the cold file. */
export function bindColdCode(exports, coldUrlOf, nodeReadFileSync) {
  primary = exports;
  const file = Object.keys(exports).find((k) => k.startsWith('__cold_file:'));
  url = file === undefined ? null : coldUrlOf(file.slice('__cold_file:'.length));
  readFileSync = nodeReadFileSync;
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
      throw unavailable(e);
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
 * The primary's loader import: instantiates the cold module, which writes its functions into the
 * primary's cold table, then flags it ready. Synchronous because it runs inside a wasm call: in a
 * browser without a prefetched module it reads the file with a synchronous request.
 */
export function loadColdCode() {
  if (coldCodeLoaded()) return;
  if (primary === null) throw new EagerError('Internal', 'eager-wasm cold code was called before init() bound it');
  try {
    compiled ??= new WebAssembly.Module(readFileSync !== null ? readFileSync(url) : fetchBytesSync(url));
    new WebAssembly.Instance(compiled, { p: primary });
    markLoaded();
  } catch (e) {
    throw unavailable(e);
  }
}

// Instantiating wrote the cold functions into the primary's cold table: the stubs may call them.
function markLoaded() {
  primary.__cold_ready.value = 1;
}

function unavailable(e) {
  return new EagerError(
    'Unavailable',
    `could not load eager-wasm's on-demand code: ${e?.message ?? e}. ` +
      'A call that needed it failed midway; the runtime may be unusable until it is reloaded.',
    { cause: e },
  );
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
