// The one static file server of the JS tooling (the demo page's `npm run demo`, the Chromium check,
// the package test, the soak, the e2e test and the benchmark): plain files under a root folder on
// 127.0.0.1, no transforms.
//
// Every response carries Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy:
// require-corp and Cross-Origin-Resource-Policy: same-origin, so pages are cross-origin isolated
// (performance.measureUserAgentSpecificMemory(), wasm threads), and Cache-Control: no-store.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
  '.onnx': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

const PLAIN_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};
const HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/**
 * Serves `root` on 127.0.0.1.
 *   pages      { '/path': html } answered from memory, before the file system
 *   redirects  { '/path': '/elsewhere' } answered with 302 (e.g. { '/': '/www/' })
 *   port       0 (the default): a free port; a taken port rejects (EADDRINUSE)
 *   log        called with a line for every response with a status >= 400
 *   isolated   false: no COOP/COEP/CORP headers (a page as most hosts serve it: not cross-origin
 *              isolated, so no SharedArrayBuffer and no wasm threads)
 * A folder is served as its index.html (after a 301 to the path with a trailing slash); paths that
 * resolve outside `root` get 403. Resolves { origin, url, port, close() }: origin is
 * `http://127.0.0.1:<port>` and url is origin + '/'.
 */
export function startServer(root, { pages = {}, redirects = {}, port = 0, log = () => {}, isolated = true } = {}) {
  root = resolve(root);

  const server = createServer(async (req, res) => {
    const send = (status, body, type = 'text/plain; charset=utf-8', extra = {}) => {
      if (status >= 400) log(`[server] ${status} ${req.url}`);
      res.writeHead(status, { ...(isolated ? HEADERS : PLAIN_HEADERS), 'Content-Type': type, ...extra });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(405, 'method not allowed\n', undefined, { Allow: 'GET, HEAD' });
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      return send(400, 'bad request\n');
    }
    if (Object.hasOwn(pages, pathname)) return send(200, pages[pathname], MIME['.html']);
    if (Object.hasOwn(redirects, pathname)) return send(302, '', undefined, { Location: redirects[pathname] });

    // Resolve inside the root only (no ../ escapes, no NUL bytes).
    const file = normalize(join(root, pathname));
    if (pathname.includes('\0') || (file !== root && !file.startsWith(root + sep))) {
      return send(403, 'forbidden\n');
    }
    let target = file;
    try {
      let s = await stat(target);
      if (s.isDirectory()) {
        if (!pathname.endsWith('/')) return send(301, '', undefined, { Location: pathname + '/' });
        target = join(target, 'index.html');
        s = await stat(target);
      }
      if (!s.isFile()) throw new Error('not a file');
      res.writeHead(200, {
        ...(isolated ? HEADERS : PLAIN_HEADERS),
        'Content-Type': MIME[extname(target).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': s.size,
      });
      if (req.method === 'HEAD') return res.end();
      createReadStream(target)
        .on('error', () => res.destroy())
        .pipe(res);
    } catch {
      send(404, `not found: ${pathname}\n`);
    }
  });

  return new Promise((ok, fail) => {
    const onError = (e) => {
      server.off('listening', onListening);
      fail(e);
    };
    const onListening = () => {
      server.off('error', onError);
      const { port } = server.address();
      const origin = `http://127.0.0.1:${port}`;
      ok({
        origin,
        url: `${origin}/`,
        port,
        // Also drops open keep-alive connections (e.g. of a browser that is still running).
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '127.0.0.1');
  });
}
