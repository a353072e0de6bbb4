// Fetching model.json and its weight shards (URL, file path in Node, or in-memory buffers).

import { weightPaths } from './eager_wasm.js';
import { EagerError, callWasm } from './errors.js';
import { isNode } from './runtime.js';

export function resolveUrl(source) {
  if (source instanceof URL) return source;
  try {
    return new URL(source);
  } catch {
    // relative: to the page in a browser, to the working directory in Node
  }
  if (typeof location === 'object' && location !== null && location.href) return new URL(source, location.href);
  if (isNode) {
    const cwd = process.cwd().replace(/\\/g, '/');
    return new URL(source, `file://${cwd.startsWith('/') ? '' : '/'}${cwd}/`);
  }
  throw new EagerError('InvalidArgument', `cannot resolve the model URL '${source}'`);
}

export async function fetchBytes(fetchFn, url, onProgress, signal) {
  if (url.protocol === 'file:' && isNode && fetchFn === globalThis.fetch) {
    const fsName = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsName);
    try {
      const b = await readFile(url);
      onProgress?.(1);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      throw new EagerError(e.code === 'ENOENT' ? 'NotFound' : 'Unavailable', `cannot read ${url.href}: ${e.message}`);
    }
  }
  if (typeof fetchFn !== 'function') {
    throw new EagerError('Unavailable', 'no fetch() available to load the model');
  }
  let res;
  try {
    res = await fetchFn(url.href, signal ? { signal } : undefined);
  } catch (e) {
    throw new EagerError('Unavailable', `could not fetch ${url.href}: ${e?.message ?? e}`, { cause: e });
  }
  if (!res.ok) {
    const code = res.status === 404 || res.status === 410 ? 'NotFound' : 'Unavailable';
    throw new EagerError(code, `fetching ${url.href} failed: HTTP ${res.status} ${res.statusText ?? ''}`.trim());
  }
  const expected = Number(res.headers?.get?.('content-length') ?? NaN);
  const known = Number.isFinite(expected) && expected > 0;
  let bytes;
  try {
    if (res.body && typeof res.body.getReader === 'function') {
      const reader = res.body.getReader();
      const chunks = [];
      let got = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        got += value.byteLength;
        if (known) onProgress?.(Math.min(got / expected, 1));
      }
      bytes = concat(chunks);
    } else {
      bytes = new Uint8Array(await res.arrayBuffer());
    }
  } catch (e) {
    throw new EagerError('Unavailable', `the download of ${url.href} was interrupted: ${e?.message ?? e}`, {
      cause: e,
    });
  }
  // Content-Encoding makes the header count compressed bytes; only compare when there is none.
  const encoded = res.headers?.get?.('content-encoding');
  if (known && !encoded && bytes.byteLength !== expected) {
    throw new EagerError(
      'InvalidArgument',
      `${url.href} is truncated: ${bytes.byteLength} of ${expected} bytes received`,
    );
  }
  onProgress?.(1);
  return bytes;
}

function asBytes(b, what) {
  if (b instanceof Uint8Array) return b;
  if (b instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer)) {
    return new Uint8Array(b);
  }
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  throw new EagerError('InvalidArgument', `${what} must be an ArrayBuffer or a typed array`);
}

/** UTF-8 bytes of a string (native TextEncoder: no JS loop over the characters). */
export const ENCODER = new TextEncoder();
export function utf8(s) {
  return s instanceof Uint8Array ? s : ENCODER.encode(s);
}

export function inMemoryWeights(modelJson, weights) {
  if (weights === undefined || weights === null) return new Uint8Array(0);
  if (Array.isArray(weights)) return concat(weights.map((w, i) => asBytes(w, `weights[${i}]`)));
  if (weights instanceof ArrayBuffer || ArrayBuffer.isView(weights)) return asBytes(weights, 'weights');
  if (typeof weights === 'object') {
    const paths = callWasm(() => weightPaths(utf8(modelJson)));
    return concat(
      paths.map((p) => {
        if (!(p in weights)) throw new EagerError('NotFound', `weights for shard '${p}' are missing`);
        return asBytes(weights[p], `weights['${p}']`);
      }),
    );
  }
  throw new EagerError('InvalidArgument', 'weights must be a buffer, an array of buffers or { [path]: buffer }');
}

export function concat(parts) {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.byteLength;
  }
  return out;
}

