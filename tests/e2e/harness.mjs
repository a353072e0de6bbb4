// Shared by the e2e test and the README screenshot script: starts scripts/serve.mjs on a free
// port and launches Debian's Chromium through playwright-core (no browser download).

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Starts the demo server on a free port (args e.g. ['--root', dir]); resolves { url, origin, stop() }. */
export function startServer(extraArgs = []) {
  const child = spawn(process.execPath, [join(root, 'scripts/serve.mjs'), ...extraArgs], {
    cwd: root,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`server did not start: ${out}`)), 15000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)\S*/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok({
          url: m[0],
          origin: m[1],
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', done);
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => fail(new Error(`server exited (${code}): ${out}`)));
  });
}

export const CHROMIUM =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Headless Chromium with a fresh profile; resolves { context, close() }. */
export async function launchBrowser(viewport = { width: 1440, height: 900 }) {
  if (!CHROMIUM) throw new Error('Chromium not found: run `bash scripts/setup.sh` (installs Debian\'s chromium)');
  const userDataDir = mkdtempSync(join(tmpdir(), 'eager-wasm-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
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
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** All data-metric readouts of the page: { [lane]: { [metric]: number } }. */
export function readMetrics(page) {
  return page.evaluate(() => {
    const out = {};
    for (const el of document.querySelectorAll('[data-lane][data-metric]')) {
      const t = el.textContent.trim();
      (out[el.dataset.lane] ??= {})[el.dataset.metric] = t === '' ? null : Number(t);
    }
    return out;
  });
}
