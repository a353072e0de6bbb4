// Loading the wasm module (init), which build was loaded, and the instance-wide calls.

import wbgInit, { initRuntime, layersBuild, opNames, relaxedSimdBuild, resetHeapPeak } from './eager_wasm.js';
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
 * The build's on-demand part (js/cold-code.js): in a browser fetched asynchronously once the page
 * is idle (`coldCode: 'idle'`, the default), or only at first need (`'on-demand'`), or before
 * init() resolves (`'at-init'`); in Node read from disk at first need unless `'at-init'`.
 */
export function init(input) {
  let coldCode;
  try {
    coldCode = isInitOptions(input) ? input.coldCode : undefined;
  } catch (e) {
    return Promise.reject(new EagerError('InvalidArgument', 'init(): the options could not be read', { cause: e }));
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
    throw new EagerError('Unavailable', `could not load the eager-wasm module: ${e?.message ?? e}`, {
      cause: e,
    });
  });
  return initPromise;
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
}

function isInitOptions(v) {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

/** Which build init() loaded: `{ simd: true, relaxedSimd, layers, split, coldCodeLoaded }`. */
export function wasmFeatures() {
  ensureInit();
  return {
    simd: true,
    relaxedSimd: callWasm(relaxedSimdBuild),
    layers: callWasm(layersBuild),
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
