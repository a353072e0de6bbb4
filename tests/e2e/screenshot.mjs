#!/usr/bin/env node
// Takes the README screenshot: the demo page at laptop width after some loads of the MLP.
//   node tests/e2e/screenshot.mjs [out.png] [loads] [width] [height]
// Defaults: docs/demo.png, 1000 loads (lane 1), 1440x900 viewport, full page.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { launchBrowser, readMetrics, root, startServer } from './harness.mjs';

const out = resolve(process.argv[2] ?? join(root, 'docs/demo.png'));
const loads = Number(process.argv[3] ?? 1000);
const width = Number(process.argv[4] ?? 1440);
const height = Number(process.argv[5] ?? 900);
const query = process.env.QUERY ?? `model=mlp&rate=500&maxLoads=${loads}`;

const server = await startServer();
const browser = await launchBrowser({ width, height });
try {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}?${query}`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const m = await readMetrics(page);
    if (Object.values(m).every((l) => (l.loads ?? 0) >= loads)) break;
    if (Date.now() > deadline) throw new Error(`lanes did not reach ${loads} loads: ${JSON.stringify(m)}`);
    await page.waitForTimeout(200);
  }
  await page.waitForTimeout(400); // the last redraw
  mkdirSync(dirname(out), { recursive: true });
  await page.screenshot({ path: out, fullPage: process.env.VIEWPORT_ONLY !== '1' });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.stop();
}
