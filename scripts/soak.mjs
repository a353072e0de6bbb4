#!/usr/bin/env node
// Soak: many load -> predict -> dispose cycles of the MobileNet-style sample, natively and in
// headless Chromium through the npm package (its threaded build: the page is cross-origin
// isolated), printing the figures and failing on any drift or on workers started past init.
//   npm run soak             10,000 native cycles, 1,000 in Chromium
//   npm run soak -- --quick  1,000 native, 200 in Chromium (what CI runs)
// Needs `npm run build` first (dist/).

import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const quick = process.argv.includes('--quick');
const nativeCycles = quick ? 1000 : 10000;
const browserCycles = quick ? 200 : 1000;

console.log(`== native: ${nativeCycles} cycles`);
execFileSync('cargo', ['run', '--quiet', '--release', '--example', 'soak', String(nativeCycles)], {
  cwd: root,
  stdio: 'inherit',
});

console.log(`\n== headless Chromium: ${browserCycles} cycles`);
const server = await startServer(root);
const browser = await launchChromium();
let failed = false;
try {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => console.error('page error:', e));
  // Every Worker the page starts is counted: the threaded build starts its workers once, at init.
  await page.addInitScript(() => {
    const Real = globalThis.Worker;
    globalThis.__workersStarted = 0;
    globalThis.Worker = class extends Real {
      constructor(...args) {
        super(...args);
        globalThis.__workersStarted++;
      }
    };
  });
  // Any same-origin page will do: the soak runs from page.evaluate through a dynamic import.
  await page.goto(`${server.origin}/tests/fixtures/models/mobilenet/model.json`);
  const r = await page.evaluate(async (cycles) => {
    const api = await import('/dist/index.js');
    const { init, EagerContext } = api;
    await init(); // the threaded build: the page is cross-origin isolated
    const ctx = new EagerContext();
    const base = '/tests/fixtures/models/mobilenet/';
    const modelJson = await (await fetch(base + 'model.json')).json();
    const weights = await (await fetch(base + 'group1-shard1of1.bin')).arrayBuffer();
    const x = ctx.tensor(new Float32Array(32 * 32 * 3).fill(0.5), [1, 32, 32, 3]);
    const heaps = [];
    const wasm = [];
    const t0 = performance.now();
    for (let i = 1; i <= cycles; i++) {
      const model = await ctx.loadGraphModel({ modelJson, weights });
      model.predict(x).dispose();
      model.dispose();
      const m = ctx.memory();
      heaps.push(m.heapBytes);
      wasm.push(m.wasmMemoryBytes);
    }
    const ms = (performance.now() - t0) / cycles;
    // Contexts come and go without threads of their own.
    const workersAtInit = globalThis.__workersStarted;
    for (let i = 0; i < 20; i++) {
      const c = new EagerContext();
      const m = await c.loadGraphModel({ modelJson, weights });
      m.predict(c.tensor(new Float32Array(32 * 32 * 3).fill(0.5), [1, 32, 32, 3])).dispose();
      c.dispose();
    }
    return { heaps, wasm, ms, last: ctx.memory(), threads: api.wasmFeatures().threads, workersAtInit, workers: globalThis.__workersStarted };
  }, browserCycles);
  const after100 = Math.min(100, browserCycles) - 1;
  const heapDrift = r.heaps.slice(1).filter((h) => h !== r.heaps[1]).length;
  const wasmGrowth = r.wasm[r.wasm.length - 1] - r.wasm[after100];
  console.log(`heap in use after each dispose: first ${r.heaps[0]} B, then ${r.heaps[1]} B, last ${r.heaps.at(-1)} B`);
  console.log(`wasm memory reserved: after 100 cycles ${r.wasm[after100]} B, at the end ${r.wasm.at(-1)} B`);
  console.log(`${r.ms.toFixed(3)} ms per load -> predict -> dispose; final ${JSON.stringify(r.last)}`);
  if (heapDrift > 0) {
    console.log(`FAIL: heap in use differed from cycle 2's value after ${heapDrift} disposes`);
    failed = true;
  }
  if (wasmGrowth > 0) {
    console.log(`FAIL: wasm memory grew by ${wasmGrowth} B after cycle 100`);
    failed = true;
  }
  console.log(`threads: ${r.threads}; workers started: ${r.workersAtInit} at init, ${r.workers} after 20 more contexts`);
  if (r.threads < 2 || r.workersAtInit !== r.threads - 1 || r.workers !== r.workersAtInit) {
    console.log('FAIL: the threaded build should start threads - 1 workers once, whatever the contexts');
    failed = true;
  }
  if (!failed) {
    console.log('ok: heap returns to the same value after every dispose; wasm memory flat after 100 cycles; a fixed set of workers');
  }
} finally {
  await browser.close();
  await server.close();
}
process.exit(failed ? 1 : 0);
