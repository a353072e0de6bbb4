// Loading the wasm module (init), which build was loaded, and the instance-wide calls.

import wbgInit, {
  initRuntime,
  layersBuild,
  opNames,
  relaxedSimdBuild,
  resetHeapPeak,
  setThreadWorkers,
  threadCount,
  threadsBuild,
  useGlue,
} from './eager_wasm.js';
import { bindBorrowEpoch, bindColdCode, coldCodeLoaded, isSplit, loadColdCodeAsync } from './cold-code.js';
import { EagerError, callWasm } from './errors.js';

let exportsRef = null; // the wasm instance exports, after init()
let initPromise = null;
let firstSource = null; // the module source the first init() call was given (null: the package's own)

export const isNode =
  typeof process === 'object' &&
  process !== null &&
  typeof process.versions === 'object' &&
  typeof process.versions.node === 'string' &&
  typeof window === 'undefined';

// A one-function module using f32x4.relaxed_madd: it validates where the engine has relaxed SIMD.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 0, 32, 0,
  253, 133, 2, 11,
]);

function engineHasRelaxedSimd() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * Loads and instantiates the wasm module. No argument needed: in a browser the .wasm is fetched
 * from next to this file (new URL(..., import.meta.url), which bundlers understand); in Node it is
 * read with fs. The default build runs graph models; `{ layers: true }` loads the build that also
 * reads the layers (Keras) format, about 85 KB more gzipped, as TF.js ships tfjs-layers apart.
 * Of each, the relaxed-SIMD build (fused multiply-add) is taken where the engine supports it, else
 * the plain SIMD128 one; `{ relaxedSimd: false }` forces the plain one. Pass a URL, Response,
 * BufferSource or WebAssembly.Module to load a given file. The first call decides: a later call
 * that asks for another build (`layers`, `relaxedSimd: false`, another source) rejects with
 * FailedPrecondition; one that asks for the same or less resolves.
 * In Node and on a cross-origin-isolated page the threaded build loads instead (graph models, not
 * split; js/threads.js starts its workers): `{ threads: N }` sets the count (default one per core,
 * at most 8), `{ threads: 1 }` keeps the single-threaded builds.
 * The build's on-demand part (js/cold-code.js): in a browser fetched asynchronously once the page
 * is idle (`coldCode: 'idle'`, the default), or only at first need (`'on-demand'`), or before
 * init() resolves (`'at-init'`); in Node read from disk at first need unless `'at-init'`.
 */
export function init(input) {
  let coldCode;
  let threads;
  try {
    coldCode = isInitOptions(input) ? input.coldCode : undefined;
    threads = isInitOptions(input) ? input.threads : undefined;
  } catch (e) {
    return Promise.reject(new EagerError('InvalidArgument', 'init(): the options could not be read', { cause: e }));
  }
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1 && threads <= 64)) {
    const got = typeof threads === 'number' ? String(threads) : typeof threads;
    return Promise.reject(new EagerError('InvalidArgument', `init(): threads must be an integer from 1 to 64, got ${got}`));
  }
  if (coldCode !== undefined && coldCode !== 'idle' && coldCode !== 'on-demand' && coldCode !== 'at-init') {
    const got = typeof coldCode === 'string' ? `'${coldCode}'` : typeof coldCode;
    return Promise.reject(
      new EagerError('InvalidArgument', `init(): coldCode must be 'idle', 'on-demand' or 'at-init', got ${got}`),
    );
  }
  if (initPromise !== null) {
    // One build per page: a later call either asks for what is loaded (or less) or fails.
    return initPromise.then(async () => {
      refuseOtherBuild(input);
      if (coldCode === 'at-init') await loadColdCodeAsync();
    });
  }
  firstSource = isInitOptions(input) || input === undefined ? null : input;
  initPromise = (async () => {
    let source = input;
    const threaded = await threadsWanted(input, threads);
    if (threaded > 1) {
      await initThreaded(input?.relaxedSimd !== false && engineHasRelaxedSimd(), threaded);
      return;
    }
    if (source === undefined || isInitOptions(source)) {
      const relaxed = source?.relaxedSimd !== false && engineHasRelaxedSimd();
      // Spelled out, one literal each, so that bundlers see (and copy) every file.
      const url = source?.layers === true
        ? relaxed
          ? new URL('./eager_wasm_layers_relaxed_bg.wasm', import.meta.url)
          : new URL('./eager_wasm_layers_bg.wasm', import.meta.url)
        : relaxed
          ? new URL('./eager_wasm_relaxed_bg.wasm', import.meta.url)
          : new URL('./eager_wasm_bg.wasm', import.meta.url);
      if (isNode) {
        const fsName = 'node:fs/promises';
        const { readFile } = await import(/* @vite-ignore */ fsName);
        source = await readFile(url);
      } else {
        source = url;
      }
    }
    let readFileSync = null;
    if (isNode) {
      const fsName = 'node:fs';
      ({ readFileSync } = await import(/* @vite-ignore */ fsName));
    }
    exportsRef = await wbgInit({ module_or_path: source });
    // Bound first: any call below may run cold code.
    bindColdCode(exportsRef, coldCodeUrl, readFileSync);
    bindBorrowEpoch(initRuntime());
    if (coldCode === 'at-init') {
      await loadColdCodeAsync();
    } else if (!isNode && (coldCode ?? 'idle') === 'idle') {
      prefetchWhenIdle();
    }
  })().catch((e) => {
    initPromise = null;
    if (e instanceof EagerError) throw e;
    throw new EagerError('Unavailable', `could not load the eager-wasm module: ${e?.message ?? e}`, {
      cause: e,
    });
  });
  return initPromise;
}

/**
 * How many threads init() should start (1: a single-threaded build). By default, the cores there
 * are wherever the threaded build can run (Node; a cross-origin-isolated page) and the options ask
 * for nothing it lacks (the layers format, a module of the caller's); an explicit `threads` above
 * 1 that cannot be had rejects, saying why.
 */
async function threadsWanted(input, threads) {
  if (threads === 1) return 1;
  const options = input === undefined || isInitOptions(input);
  const why = !options
    ? 'a module given to init() is loaded as it is (pass options instead to let init() pick the build)'
    : input?.layers === true
      ? 'the layers format has no threaded build (init({ layers: true, threads: 1 }))'
      : !threadsPossible()
        ? 'threads need SharedArrayBuffer: a cross-origin-isolated page (serve it with the headers ' +
          '`Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`) or Node'
        : null;
  if (why !== null) {
    if (threads === undefined) return 1;
    throw new EagerError('FailedPrecondition', `init({ threads: ${threads} }): ${why}`);
  }
  return threads ?? (await import('./threads.js')).defaultThreadCount();
}

/** Node, or a cross-origin-isolated page (js/threads.js, which starts the workers, loads only then). */
function threadsPossible() {
  if (typeof SharedArrayBuffer !== 'function') return false;
  return isNode || globalThis.crossOriginIsolated === true;
}

/**
 * Loads the threaded build (graph models; not split), starts `threads - 1` workers on its shared
 * memory and tells the runtime how many came up.
 */
async function initThreaded(relaxed, threads) {
  const url = relaxed
    ? new URL('./eager_wasm_threads_relaxed_bg.wasm', import.meta.url)
    : new URL('./eager_wasm_threads_bg.wasm', import.meta.url);
  let module;
  if (isNode) {
    const fsName = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsName);
    module = await WebAssembly.compile(await readFile(url));
  } else {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    module = await WebAssembly.compile(await response.arrayBuffer());
  }
  const glue = await import('./eager_wasm_threads.js');
  exportsRef = await glue.default({ module_or_path: module });
  useGlue(glue);
  bindColdCode(exportsRef, coldCodeUrl, null);
  bindBorrowEpoch(initRuntime());
  const { startWorkers } = await import('./threads.js');
  const started = await startWorkers(module, exportsRef.memory, threads - 1);
  setThreadWorkers(started);
}

/**
 * Loads the on-demand part once the page is idle, so that a rare op later finds it ready instead of
 * fetching it with a synchronous request. Not in Node, where the part is read from disk when needed.
 */
function prefetchWhenIdle() {
  const start = () => loadColdCodeAsync().catch(() => {}); // a failure is reported by the call that needs it
  if (typeof requestIdleCallback === 'function') requestIdleCallback(start, { timeout: 5000 });
  else setTimeout(start, 1000);
}

// The cold half of a build (js/cold-code.js), next to it; one literal each, for bundlers.
function coldCodeUrl(file) {
  switch (file) {
    case 'eager_wasm_cold.wasm':
      return new URL('./eager_wasm_cold.wasm', import.meta.url);
    case 'eager_wasm_relaxed_cold.wasm':
      return new URL('./eager_wasm_relaxed_cold.wasm', import.meta.url);
    case 'eager_wasm_layers_cold.wasm':
      return new URL('./eager_wasm_layers_cold.wasm', import.meta.url);
    case 'eager_wasm_layers_relaxed_cold.wasm':
      return new URL('./eager_wasm_layers_relaxed_cold.wasm', import.meta.url);
    default: // not a file of this package (a variable, so that bundlers leave it alone)
      return new URL(file, import.meta.url);
  }
}

/**
 * Rejects a later init() call whose options ask for a build other than the loaded one: the
 * instance holds every tensor and model of the page, so it is never swapped.
 */
function refuseOtherBuild(input) {
  const loaded = layersBuild() ? 'the build with the layers format' : 'the graph-model build (no layers format)';
  const refuse = (why) =>
    new EagerError(
      'FailedPrecondition',
      `init() was already called and loaded ${loaded}${relaxedSimdBuild() ? ' with relaxed SIMD' : ''}; ${why}. ` +
        'The first init() call chooses the build for the page: pass the same options to every call (e.g. init({ layers: true }) everywhere)',
    );
  if (input === undefined) return;
  if (!isInitOptions(input)) {
    if (input !== firstSource) throw refuse('this call gives another module to load');
    return;
  }
  if (input.layers === true && !layersBuild()) throw refuse('this call asks for the layers format');
  if (input.relaxedSimd === false && relaxedSimdBuild()) throw refuse('this call asks for the plain SIMD build');
  if (input.threads !== undefined && input.threads !== threadCount()) {
    throw refuse(`this call asks for ${input.threads} thread(s) and ${threadCount()} run`);
  }
}

function isInitOptions(v) {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

/**
 * Which build init() loaded: `{ simd: true, relaxedSimd, layers, threads, split, coldCodeLoaded }`
 * (`threads`: how many threads kernels use, the calling one included; 1 in the single-threaded
 * builds).
 */
export function wasmFeatures() {
  ensureInit();
  return {
    simd: true,
    relaxedSimd: callWasm(relaxedSimdBuild),
    layers: callWasm(layersBuild),
    threads: callWasm(threadsBuild) ? callWasm(threadCount) : 1,
    split: isSplit(),
    coldCodeLoaded: coldCodeLoaded(),
  };
}

export function ensureInit() {
  if (exportsRef === null) {
    throw new EagerError('FailedPrecondition', 'eager-wasm is not initialized: call `await init()` first');
  }
}

/** Names of every op the runtime implements, sorted. */
export function registeredOps() {
  ensureInit();
  return callWasm(opNames);
}

/** Sets the heap high-water mark (memory().heapPeakBytes) back to the current heap in use. */
export function resetPeakMemory() {
  ensureInit();
  callWasm(resetHeapPeak);
}

/** The wasm instance's memory (after init()). */
export function wasmMemory() {
  return exportsRef.memory;
}
