// Shared by the Chromium check and the package test: a tiny static server on 127.0.0.1 and headless
// Debian Chromium driven by playwright-core (no browser download; flags from ../shared/TOOLCHAIN.md).

import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
  '.map': 'application/json',
};

/** Serves `root` (plain files, no transforms); `pages` maps a URL path to an HTML string. */
export function serveStatic(root, pages = {}) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (pages[path] !== undefined) {
      res.writeHead(200, { 'content-type': MIME['.html'] });
      res.end(pages[path]);
      return;
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(normalize(root + sep)) && file !== normalize(root)) {
      res.writeHead(403).end();
      return;
    }
    let st;
    try {
      st = statSync(file);
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    if (!st.isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'content-length': st.size,
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches headless Chromium with a fresh profile; returns { browser, close }. */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'eager-wasm-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--headless=new',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens `url` in a new page and waits for `window.__result` (set by the page's module script);
 * rejects on a page error or timeout. Console lines are echoed with a prefix.
 */
export async function runPage(context, url, { timeoutMs = 60000, prefix = '[page]' } = {}) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(prefix, 'pageerror', e.message));
  page.on('console', (m) => console.log(prefix, m.text()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.__result !== undefined || window.__error !== undefined, null, {
      timeout: timeoutMs,
    });
  } catch (e) {
    throw new Error(`page timed out; page errors: ${errors.map((x) => x.message).join('; ')}`);
  }
  const out = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
  await page.close();
  if (out.error !== undefined) throw new Error(`page failed: ${out.error}`);
  return out.result;
}
