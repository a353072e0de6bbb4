// Shared by the e2e test and the README screenshot script: the demo page served in-process by
// scripts/lib/server.mjs on a free port, and headless Chromium from scripts/lib/browser.mjs.

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../scripts/lib/browser.mjs';
import { startServer as serve } from '../../scripts/lib/server.mjs';
import { bundleTfjsLaneForDev } from '../../scripts/lib/tfjs-lane.mjs';

export { CHROMIUM } from '../../scripts/lib/browser.mjs';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Serves the demo page on a free port, as `node scripts/serve.mjs` does: the repository (page at
 * /www/, with the TF.js lane's bundle made first) or, with ['--root', dir], a site build (page at /). Resolves { url, origin, stop() }: url is
 * the page, origin ends with '/'.
 */
export async function startServer(extraArgs = []) {
  const rootArg = extraArgs.indexOf('--root');
  const site = rootArg >= 0 ? resolve(extraArgs[rootArg + 1]) : null;
  const landing = site ? '/' : '/www/';
  if (!site) await bundleTfjsLaneForDev();
  const server = await serve(site ?? root, { redirects: site ? {} : { '/': landing } });
  return { url: server.origin + landing, origin: server.url, stop: server.close };
}

/** Headless Chromium with a fresh profile; resolves { context, close() }. */
export function launchBrowser(viewport = { width: 1440, height: 900 }) {
  return launchChromium({ viewport });
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
