// The one headless-Chromium launcher of the JS tooling: Debian's Chromium driven by playwright-core
// (no browser download; flags from ../shared/TOOLCHAIN.md), plus runPage for the check pages.
// The static server the pages come from is ./server.mjs.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * Launches headless Chromium with a fresh profile (removed on close); resolves { context, close() }.
 *   viewport  the pages' size (playwright's default, 1280x720, when omitted)
 *   args      flags on top of CHROMIUM_ARGS
 */
export async function launchChromium({ viewport, args = [] } = {}) {
  if (!CHROMIUM) throw new Error("Chromium not found: run `bash scripts/setup.sh` (installs Debian's chromium)");
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'eager-wasm-chromium-'));
  const removeProfile = () => rmSync(userDataDir, { recursive: true, force: true });
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      ...(viewport && { viewport }),
      args: [...CHROMIUM_ARGS, ...args],
    });
  } catch (e) {
    removeProfile();
    throw e;
  }
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      removeProfile();
    },
  };
}

/**
 * Opens `url` in a new page and waits for `window.__result` (set by the page's module script);
 * rejects on a page error or timeout. Console lines are echoed with a prefix (unless `echoConsole`
 * is false).
 */
export async function runPage(context, url, { timeoutMs = 60000, prefix = '[page]', echoConsole = true } = {}) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => {
    console.log(prefix, 'pageerror', e.message);
    errors.push(e);
  });
  if (echoConsole) page.on('console', (m) => console.log(prefix, m.text()));
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
