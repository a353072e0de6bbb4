#!/usr/bin/env node
// A tiny static server for the demo page: serves the repository root (so /www/, /dist/,
// /node_modules/uplot/ and /tests/fixtures/models/ are all reachable) on 127.0.0.1.
//
//   node scripts/serve.mjs            port from $PORT, else 8080; a free port if that one is taken
//   PORT=0 node scripts/serve.mjs     any free port
//   node scripts/serve.mjs --root site   serve another folder (e.g. the production build)
//
// Every response carries Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy:
// require-corp, so the page is cross-origin isolated and performance.measureUserAgentSpecificMemory()
// is available. The first line printed is the page's URL (the e2e test reads it).

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const rootArg = argv.indexOf('--root');
const root = rootArg >= 0 ? resolve(argv[rootArg + 1]) : repoRoot;
// The page lives in www/ of the repository; a production build (site/) has it at its root.
const landing = rootArg >= 0 ? '/' : '/www/';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

function send(res, status, body, type = 'text/plain; charset=utf-8', extra = {}) {
  res.writeHead(status, { ...ISOLATION, 'Content-Type': type, ...extra });
  res.end(body);
}

const server = createServer(async (req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(res, 405, 'method not allowed\n', undefined, { Allow: 'GET, HEAD' });
  }
  let pathname;
  try {
    pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    return send(res, 400, 'bad request\n');
  }
  if (pathname === '/' && landing !== '/') {
    return send(res, 302, '', undefined, { Location: landing });
  }
  // Resolve inside the root only (no ../ escapes, no NUL bytes).
  const file = normalize(join(root, pathname));
  if (pathname.includes('\0') || (file !== root && !file.startsWith(root + sep))) {
    return send(res, 403, 'forbidden\n');
  }
  let target = file;
  try {
    let s = await stat(target);
    if (s.isDirectory()) {
      if (!pathname.endsWith('/')) {
        return send(res, 301, '', undefined, { Location: pathname + '/' });
      }
      target = join(target, 'index.html');
      s = await stat(target);
    }
    res.writeHead(200, {
      ...ISOLATION,
      'Content-Type': MIME[extname(target).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': s.size,
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(target)
      .on('error', () => res.destroy())
      .pipe(res);
  } catch {
    send(res, 404, `not found: ${pathname}\n`);
  }
});

function listen(port) {
  return new Promise((ok, fail) => {
    const onError = (e) => {
      server.off('listening', onListening);
      fail(e);
    };
    const onListening = () => {
      server.off('error', onError);
      ok(server.address().port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '127.0.0.1');
  });
}

const wanted = process.env.PORT === undefined || process.env.PORT === '' ? 8080 : Number(process.env.PORT);
let port;
try {
  port = await listen(wanted);
} catch (e) {
  if (e.code !== 'EADDRINUSE' && e.code !== 'EACCES') throw e;
  port = await listen(0);
  console.error(`port ${wanted} is taken; using ${port} instead`);
}
console.log(`eager-wasm demo: http://127.0.0.1:${port}${landing}`);
if (rootArg < 0) console.log(`serving ${root} (Ctrl-C to stop)`);

const stop = () => server.close(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
