// Fetching model.json and its weight shards (URL, file path in Node, or in-memory buffers).

import { weightPaths } from './eager_wasm.js';
import { EagerError, callWasm } from './errors.js';
import { isNode } from './runtime.js';
import { bytesOf, invalid, isBufferLike, messageOf } from './snapshot.js';

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

/**
 * The URL of weight shard `path` of the model at `modelUrl`, resolved as TF.js's `http` handler
 * does: the model URL up to its last '/', then the path, then the model URL's query string. A
 * model file is untrusted input, so a path that is itself an absolute URL (`file:///etc/passwd`,
 * `https://elsewhere/w.bin`) or that would leave the model's origin is refused: a model fetched over
 * HTTP can only make the loader fetch from its own origin, and only a model given as a file path
 * or `file:` URL reads local files.
 */
export function shardUrl(modelUrl, path) {
  const refuse = (why) =>
    new EagerError(
      'InvalidArgument',
      `the model's weightsManifest names the shard '${clip(path)}', ${why}: shard paths are relative to the model.json (${modelUrl.href})`,
    );
  if (typeof path !== 'string') throw refuse('which is not a string');
  let absolute = true;
  try {
    new URL(path);
  } catch {
    absolute = false;
  }
  if (absolute) throw refuse('an absolute URL');
  const href = modelUrl.href;
  const query = modelUrl.search;
  const base = href.slice(0, href.length - query.length - modelUrl.hash.length);
  const prefix = base.slice(0, base.lastIndexOf('/') + 1);
  let url;
  try {
    url = new URL(prefix + path + query);
  } catch {
    throw refuse('which does not make a valid URL');
  }
  if (url.protocol !== modelUrl.protocol || url.origin !== modelUrl.origin) throw refuse('which leaves the model\'s origin');
  return url;
}

const clip = (s) => (typeof s === 'string' && s.length > 200 ? `${s.slice(0, 200)}...` : String(s));

/**
 * The bytes at `url`. `what` is 'model.json' or 'shard': errors name the URL, the HTTP status and
 * the content type, and say when HTML came back (a dev server answering a missing file with its
 * index.html).
 */
export async function fetchBytes(fetchFn, url, onProgress, signal, what = 'shard') {
  if (url.protocol === 'file:' && isNode && fetchFn === globalThis.fetch) {
    const fsName = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsName);
    try {
      const b = await readFile(url, { signal });
      onProgress?.(1);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      if (signal.aborted) throw e;
      throw new EagerError(e.code === 'ENOENT' ? 'NotFound' : 'Unavailable', `cannot read ${url.href}: ${e.message}`);
    }
  }
  if (typeof fetchFn !== 'function') {
    throw new EagerError('Unavailable', 'no fetch() available to load the model');
  }
  let res;
  try {
    res = await fetchFn(url.href, { signal });
  } catch (e) {
    throw new EagerError('Unavailable', `could not fetch ${url.href}: ${messageOf(e)}`, { cause: e });
  }
  // A custom fetch may return anything: every read of the response is checked.
  let ok, status, statusText, expected, encoded, body, contentType;
  try {
    if (res === null || typeof res !== 'object') throw new TypeError(`got ${res === null ? 'null' : typeof res}`);
    ({ ok, status, statusText } = res);
    contentType = res.headers?.get?.('content-type') ?? null;
    expected = Number(res.headers?.get?.('content-length') ?? NaN);
    // Content-Encoding makes the header count compressed bytes; only compare when there is none.
    encoded = res.headers?.get?.('content-encoding');
    body = res.body;
  } catch (e) {
    throw new EagerError('Unavailable', `fetch(${url.href}) did not return a Response: ${messageOf(e)}`, { cause: e });
  }
  const served = `HTTP ${status}${statusText ? ` ${statusText}` : ''}, content-type ${contentType ?? 'none'}`;
  if (!ok) {
    const code = status === 404 || status === 410 ? 'NotFound' : 'Unavailable';
    throw new EagerError(code, `fetching the ${what} ${url.href} failed: ${served}`);
  }
  const html = typeof contentType === 'string' && /html/i.test(contentType);
  if (html) throw looksLikeHtml(what, url, served);
  const known = Number.isFinite(expected) && expected > 0;
  let bytes;
  try {
    if (body && typeof body.getReader === 'function') {
      const reader = body.getReader();
      const chunks = [];
      let got = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const chunk = bytesOf(value, 'a chunk of the response');
        if (chunk === null) throw new TypeError('the response body gave a chunk that is not bytes');
        chunks.push(chunk);
        got += chunk.byteLength;
        if (known) onProgress?.(Math.min(got / expected, 1));
      }
      bytes = concat(chunks);
    } else {
      bytes = bytesOf(await res.arrayBuffer(), 'the response body');
      if (bytes === null) throw new TypeError('arrayBuffer() did not give an ArrayBuffer');
    }
  } catch (e) {
    if (signal.aborted) throw e;
    throw new EagerError('Unavailable', `the download of ${url.href} was interrupted: ${messageOf(e)}`, {
      cause: e,
    });
  }
  if (known && !encoded && bytes.byteLength !== expected) {
    throw new EagerError(
      'InvalidArgument',
      `${url.href} is truncated: ${bytes.byteLength} of ${expected} bytes received`,
    );
  }
  // Without a content type to go by, a model.json that starts with '<' is HTML too.
  if (what === 'model.json' && firstNonSpace(bytes) === 0x3c) throw looksLikeHtml(what, url, served);
  onProgress?.(1);
  return bytes;
}

function looksLikeHtml(what, url, served) {
  return new EagerError(
    'NotFound',
    `the ${what} ${url.href} looks like HTML, not ${what === 'model.json' ? 'a TF.js model.json' : 'weights'} ` +
      `(${served}): is the URL right? Dev servers answer a missing file with their index.html`,
  );
}

function firstNonSpace(bytes) {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf) return b;
  }
  return -1;
}

function asBytes(b, what) {
  const bytes = bytesOf(b, what);
  if (bytes === null) throw invalid(`${what} must be an ArrayBuffer, a SharedArrayBuffer or a typed array`);
  return bytes;
}

/** UTF-8 bytes of a string (native TextEncoder: no JS loop over the characters). */
export const ENCODER = new TextEncoder();
export function utf8(s) {
  return s instanceof Uint8Array ? s : ENCODER.encode(s);
}

export function inMemoryWeights(modelJson, weights) {
  if (weights === undefined || weights === null) return new Uint8Array(0);
  if (isBufferLike(weights)) return asBytes(weights, 'weights');
  try {
    if (Array.isArray(weights)) {
      const n = weights.length;
      const parts = new Array(n);
      for (let i = 0; i < n; i++) parts[i] = asBytes(weights[i], `weights[${i}]`);
      return concat(parts);
    }
    if (typeof weights === 'object') {
      const paths = callWasm(() => weightPaths(utf8(modelJson)));
      return concat(
        paths.map((p) => {
          if (!(p in weights)) {
            throw new EagerError('NotFound', `weights for shard '${p}' are missing`);
          }
          return asBytes(weights[p], `weights['${p}']`);
        }),
      );
    }
  } catch (e) {
    throw e instanceof EagerError ? e : invalid(`the weights could not be read: ${messageOf(e)}`, e);
  }
  throw invalid('weights must be a buffer, an array of buffers or { [path]: buffer }');
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

