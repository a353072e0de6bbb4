// A tiny static file server for the benchmark page: repo root on 127.0.0.1, random port,
// cross-origin isolated (COOP/COEP), no caching. Serves only files under the repo root.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
  '.onnx': 'application/octet-stream',
  '.map': 'application/json',
};

export function startServer(root, { log = () => {} } = {}) {
  const server = createServer(async (req, res) => {
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    };
    try {
      const url = new URL(req.url, 'http://127.0.0.1');
      const rel = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
      const file = join(root, rel);
      if (file !== root && !file.startsWith(root + sep)) throw Object.assign(new Error('outside root'), { status: 403 });
      const st = await stat(file);
      if (!st.isFile()) throw Object.assign(new Error('not a file'), { status: 404 });
      res.writeHead(200, {
        ...headers,
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Content-Length': st.size,
      });
      createReadStream(file).pipe(res);
    } catch (e) {
      const status = e.status ?? (e.code === 'ENOENT' ? 404 : 500);
      log(`[server] ${status} ${req.url}`);
      res.writeHead(status, { ...headers, 'Content-Type': 'text/plain' });
      res.end(String(status));
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
