// model.json objects to text, remembered across loads of the same unchanged object, and written
// straight into wasm memory.

import { stageJson } from './eager_wasm.js';
import { EagerError } from './errors.js';
import { ENCODER } from './fetch.js';
import { wasmMemory } from './runtime.js';

// Pages load the same parsed model.json again and again. Serializing it is the largest part of a
// load, while checking that it is unchanged is a fraction of that: from its second load on, an
// object's text is remembered together with a trace of everything the text was made from (every
// key and primitive value, in order), and reused only if a walk of the object finds exactly that
// trace again. So an edit to the object between loads, anywhere, makes a new text: nothing stale is
// ever loaded. Only plain JSON data is traced (plain objects and arrays, strings, finite numbers,
// booleans, null); anything else (class instances, toJSON, undefined, ...) is serialized each time.

/** model.json object -> null (seen once) or { trace, text }. */
const modelTexts = new WeakMap();
const OBJECT_PROTO = Object.prototype;
const ARRAY_PROTO = Array.prototype;
const END = Symbol('end of object');

export function cachedModelJsonText(m) {
  if (m === null || typeof m !== 'object' || OBJECT_PROTO.toJSON !== undefined || ARRAY_PROTO.toJSON !== undefined) {
    return modelJsonText(m);
  }
  const entry = modelTexts.get(m);
  if (entry !== undefined && entry !== null && matchTrace(m, entry.trace, 0) === entry.trace.length) {
    return entry.text;
  }
  const text = modelJsonText(m);
  if (entry === undefined) {
    modelTexts.set(m, null); // the first load pays for no trace; most objects are loaded once
  } else {
    const trace = [];
    modelTexts.set(m, recordTrace(m, trace) ? { trace, text } : null);
  }
  return text;
}

/** Appends the trace of `v` to `out`; false if `v` holds anything but plain JSON data. */
function recordTrace(v, out) {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      out.push(v);
      return true;
    case 'number':
      out.push(v);
      return Number.isFinite(v);
    case 'object': {
      if (v === null) {
        out.push(v);
        return true;
      }
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== ARRAY_PROTO) return false;
        out.push(ARRAY_PROTO, v.length);
        for (let i = 0; i < v.length; i++) if (!recordTrace(v[i], out)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== OBJECT_PROTO && proto !== null) return false;
      out.push(OBJECT_PROTO);
      for (const k in v) {
        out.push(k);
        if (!recordTrace(v[k], out)) return false;
      }
      out.push(END);
      return true;
    }
    default:
      return false;
  }
}

/** Position after `v`'s trace if `trace` holds it at `i`, else -1. */
function matchTrace(v, trace, i) {
  if (typeof v !== 'object' || v === null) return trace[i] === v ? i + 1 : -1;
  if (Array.isArray(v)) {
    if (trace[i] !== ARRAY_PROTO || trace[i + 1] !== v.length || Object.getPrototypeOf(v) !== ARRAY_PROTO) return -1;
    i += 2;
    for (let k = 0; k < v.length && i >= 0; k++) i = matchTrace(v[k], trace, i);
    return i;
  }
  const proto = Object.getPrototypeOf(v);
  if (trace[i] !== OBJECT_PROTO || (proto !== OBJECT_PROTO && proto !== null)) return -1;
  i += 1;
  for (const k in v) {
    if (trace[i] !== k) return -1;
    i = matchTrace(v[k], trace, i + 1);
    if (i < 0) return -1;
  }
  return trace[i] === END ? i + 1 : -1;
}

/**
 * JSON text of a parsed model.json with only what the loader reads: serializing is most of the cost
 * of loading from an object. Left out: top-level metadata (generatedBy, userDefinedMetadata, ...) and
 * the attrs of Const nodes whose value comes from the weights manifest, except `dtype` (an int64 Const
 * the converter stored as int32 weights is restored as int64, as when loading the full text).
 * Anything of an unexpected shape is kept as it is, so the loader reports it as before.
 */
function modelJsonText(m) {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return JSON.stringify(m);
  const topo = m.modelTopology;
  const manifest = m.weightsManifest;
  let slim = topo;
  const weightNames = new Set();
  if (topo !== null && typeof topo === 'object' && Array.isArray(topo.node) && Array.isArray(manifest)) {
    for (const g of manifest) {
      if (g === null || typeof g !== 'object' || !Array.isArray(g.weights)) continue;
      for (const w of g.weights) if (w !== null && typeof w === 'object') weightNames.add(w.name);
    }
    const nodes = topo.node.map((n) =>
      n !== null &&
      typeof n === 'object' &&
      n.op === 'Const' &&
      weightNames.has(n.name) &&
      n.attr !== null &&
      typeof n.attr === 'object' &&
      !Array.isArray(n.attr)
        ? { name: n.name, op: n.op, input: n.input, attr: { dtype: n.attr.dtype } }
        : n,
    );
    slim = { node: nodes, library: topo.library };
  }
  return JSON.stringify({
    format: m.format,
    modelTopology: slim,
    weightsManifest: manifest,
    signature: m.signature,
    // The graph that makes the model's lookup tables, and the outputs that pair with its inputs.
    modelInitializer: m.modelInitializer,
    initializerSignature: m.initializerSignature,
  });
}

/** Loads from model.json text that the native encoder writes straight into wasm memory. */
export function loadFromText(w, text, weights, onRestore) {
  if (typeof SharedArrayBuffer === 'function' && wasmMemory().buffer instanceof SharedArrayBuffer) {
    // The threaded build's memory is shared, which browsers' encodeInto refuses: encode, then copy.
    const bytes = ENCODER.encode(text);
    const ptr = stageJson(bytes.length);
    new Uint8Array(wasmMemory().buffer, ptr, bytes.length).set(bytes);
    return w.loadModelStaged(bytes.length, weights, onRestore);
  }
  // UTF-8 of n UTF-16 units: n bytes if ASCII (nearly always), at most 3n.
  for (const cap of [text.length, text.length * 3]) {
    const ptr = stageJson(cap);
    const { read, written } = ENCODER.encodeInto(text, new Uint8Array(wasmMemory().buffer, ptr, cap));
    if (read === text.length) return w.loadModelStaged(written, weights, onRestore);
  }
  throw new EagerError('Internal', 'model.json text did not fit its UTF-8 bound');
}

