// An op's attrs as bytes for WasmContext.executeEncoded (decoded by src/bindings/attrs.rs,
// `decode_encoded`, which documents the format): the runtime reads them from wasm memory in one
// pass, instead of reading a JS object property by property, each read a call across the
// boundary (about 2 µs for an op with a handful of attrs, more than many kernels take). Only
// plain values are encoded: booleans, numbers, ASCII strings, null and arrays of them (nested
// twice at most). For anything else encodeAttrs returns null and the attrs go as the object.

let buf = new Uint8Array(256);
let view = new DataView(buf.buffer);
let pos = 0;

function room(n) {
  if (pos + n <= buf.length) return;
  const grown = new Uint8Array(Math.max(2 * buf.length, pos + n));
  grown.set(buf.subarray(0, pos));
  buf = grown;
  view = new DataView(grown.buffer);
}

function ascii(s) {
  const n = s.length;
  room(4 + n);
  view.setUint32(pos, n, true);
  pos += 4;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 127) return false;
    buf[pos++] = c;
  }
  return true;
}

function value(v, depth) {
  switch (typeof v) {
    case 'boolean':
      room(1);
      buf[pos++] = v ? 1 : 0;
      return true;
    case 'number':
      room(9);
      buf[pos++] = 2;
      view.setFloat64(pos, v, true);
      pos += 8;
      return true;
    case 'string':
      room(1);
      buf[pos++] = 3;
      return ascii(v);
    case 'object':
      if (v === null) {
        room(1);
        buf[pos++] = 4;
        return true;
      }
      if (depth < 2 && Array.isArray(v)) {
        room(5);
        buf[pos++] = 5;
        view.setUint32(pos, v.length, true);
        pos += 4;
        for (let i = 0; i < v.length; i++) if (!value(v[i], depth + 1)) return false;
        return true;
      }
      return false;
    default:
      return false;
  }
}

/**
 * `plain` (a plain copy of an attrs object: see snapshot.js) as bytes, or null if it holds a value
 * that is not encoded. The bytes are a view of a buffer reused by the next call.
 */
export function encodeAttrs(plain) {
  pos = 0;
  const keys = Object.keys(plain);
  for (let i = 0; i < keys.length; i++) {
    const v = plain[keys[i]];
    if (v === undefined) continue; // not set, as the object path reads it
    if (!ascii(keys[i]) || !value(v, 0)) return null;
  }
  return buf.subarray(0, pos);
}
