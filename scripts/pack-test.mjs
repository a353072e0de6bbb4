#!/usr/bin/env node
// The npm package end to end: `npm pack`, install the tarball into an empty temp project, import it
// in Node 20, run a MatMul (or AddV2 while MatMul is not registered), load a model (by file path in
// Node, by URL in browsers), predict and compare with TF's outputs, and fromPixels; then the same in
// headless Chromium, each on the page and in a module worker: the installed package served as plain
// ESM, an app on Vite's dev server, and the same app built by Vite (which must emit the .wasm as an
// asset from the package's `new URL(..., import.meta.url)`). Then the README's examples, verbatim
// (each fenced block after an `<!-- example: NAME -->` marker): the Node one under node against a
// test model, the page and the module worker as a Vite app with the README's vite.config.js, on
// Vite's dev server and built, in headless Chromium; each must print top classes of the right shape.
// Last, those examples and tests/types/dtypes.ts must type-check strictly against the package's
// types (`tsc --strict --checkJs --noEmit`, no casts): tsc from node_modules/.bin or $TSC (failing,
// loudly, when there is none).
// Needs a built dist/ (`npm run build`) and Chromium.

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, gzipSync } from 'node:zlib';
import { launchChromium, runPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'eager-wasm-pack-'));
const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

// The model the README's examples run: MobileNet-style, [-1, 32, 32, 3] -> 10 class scores.
const EXAMPLE_MODEL = join(root, 'tests/fixtures/models/mobilenet');
const EXAMPLE_CLASSES = 10;

// Not part of the README: starts the README's worker as its text says, posts frames at once (while
// the worker still loads its model: none may be lost) and collects the replies.
const FRAMES = 3;
const harness = `const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const replies = [];
worker.onerror = (e) => { window.__error = 'worker: ' + (e.message || 'failed to load'); };
worker.onmessage = (e) => {
  replies.push(e.data);
  if (replies.length === ${FRAMES}) window.__result = replies;
};
const image = new Image();
image.src = '/photo.png';
await image.decode();
for (let i = 0; i < ${FRAMES}; i++) {
  const frame = await createImageBitmap(image);
  worker.postMessage(frame, [frame]);
}
`;

// What every runtime executes (MODEL: the mlp fixture's model.json; ref: its reference.json).
const program = `
const ctx = new EagerContext();
const a = ctx.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
const b = ctx.tensor([[1, 0], [0, 1]]);
const op = registeredOps().includes('MatMul') ? 'MatMul' : 'AddV2';
const [c] = ctx.execute(op, [a, b], op === 'MatMul' ? { transpose_b: true } : undefined);
const got = Array.from(c.dataSync()).join(',');
const want = op === 'MatMul' ? '1,2,3,4' : '2,2,3,5';
let errOk = false;
try { ctx.execute('NoSuchOp', []); } catch (e) { errOk = e instanceof EagerError && e.code === 'NotFound'; }
// A rare op: the build's on-demand part (_cold.wasm) is found and loaded, also through a bundler.
const [at] = ctx.execute('Atan2', [a, b]);
const coldOk = (wasmFeatures().coldCodeLoaded || !wasmFeatures().split) && Math.abs(at.dataSync()[1] - Math.PI / 2) < 1e-6; // (the threaded build is whole)
at.dispose();
const model = await ctx.loadGraphModel(MODEL);
model.warmup();
const x = ctx.tensor(new Float32Array(ref.inputs.x.data), ref.inputs.x.shape);
const y = model.predict(x);
const yd = y.dataSync();
let maxErr = 0;
ref.outputs.y.data.forEach((w, i) => { maxErr = Math.max(maxErr, Math.abs(yd[i] - w) / (0.1 + Math.abs(w))); });
x.dispose(); y.dispose(); model.dispose();
const px = ctx.fromPixels({ data: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), width: 2, height: 1 });
const pixels = Array.from(px.dataSync()).join(',');
px.dispose();
const a1 = a.add(1);
const chained = ctx.tidy(() => a1.sum().dataSync()[0]); // chainable methods survive bundling (sideEffects: false)
a.dispose(); b.dispose(); c.dispose(); a1.dispose();
const left = ctx.memory().numTensors;
ctx.dispose();
const build = (wasmFeatures().relaxedSimd ? 'relaxed-simd' : 'simd') + (wasmFeatures().threads > 1 ? ', ' + wasmFeatures().threads + ' threads' : '');
const ok = got === want && errOk && coldOk && maxErr <= 1e-4 && pixels === '1,2,3,5,6,7' && chained === 14 && left === 0;
const result = { op, got, want, build, coldOk, maxErr, pixels, left, ok };
`;
const imports = 'init, EagerContext, EagerError, registeredOps, wasmFeatures';
/** A browser or worker module: runs `program` with the package from `from`, the model at `dir`. */
const browserProgram = (from, dir) => `import { ${imports} } from '${from}';
const MODEL = '${dir}/model.json';
const run = async () => {
  await init();
  const ref = await (await fetch('${dir}/reference.json')).json();
  ${program}
  // An OffscreenCanvas (what a worker draws on) through fromPixels: the pixels drawn come back.
  const canvas = new OffscreenCanvas(2, 1);
  canvas.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray([9, 8, 7, 255, 6, 5, 4, 255]), 2, 1), 0, 0);
  const pctx = new EagerContext();
  result.pixels += ' canvas ' + Array.from(pctx.fromPixels(canvas).dataSync()).join(',');
  pctx.dispose();
  result.ok = result.ok && result.pixels.endsWith(' canvas 9,8,7,6,5,4');
  return result;
};
`;
/** A page module running `program` there and in a module worker (`worker`: its URL expression). */
const pageMain = (from, dir, worker) => `${browserProgram(from, dir)}
const inWorker = () => new Promise((resolve, reject) => {
  const w = new Worker(${worker}, { type: 'module' });
  w.onmessage = (e) => (e.data.error ? reject(new Error('worker: ' + e.data.error)) : resolve(e.data.result));
  w.onerror = (e) => reject(new Error('worker: ' + e.message));
});
(async () => {
  try {
    window.__result = { page: await run(), worker: await inWorker() };
  } catch (e) { window.__error = (e && e.stack) || String(e); }
})();
`;
const workerMain = (from, dir) => `${browserProgram(from, dir)}
run().then((result) => self.postMessage({ result }), (e) => self.postMessage({ error: (e && e.stack) || String(e) }));
`;
const show = (label, r) => `${label} (${r.build} build): ${r.op} -> [${r.got}], Atan2 (on demand) ${r.coldOk ? 'ok' : 'WRONG'}, mlp max rel. error ${r.maxErr.toExponential(1)}, fromPixels [${r.pixels}], ${r.left} tensors left ${r.ok ? 'ok' : 'WRONG'}`;

let failed = false;
try {
  const packed = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', work], root))[0];
  const tarball = join(work, packed.filename);
  console.log(`packed ${packed.filename}: ${packed.size} bytes, ${packed.files.length} files`);
  for (const f of packed.files) console.log(`  ${f.path} (${f.size})`);

  const app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  sh('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], app);

  // The model: public/ is served at / by Vite (and copied into its build).
  const model = join(app, 'public/model');
  mkdirSync(model, { recursive: true });
  cpSync(join(root, 'tests/fixtures/models/mlp'), model, { recursive: true });

  // Node: import by package name, through the exports map; the model by file path.
  writeFileSync(
    join(app, 'main.mjs'),
    `import { ${imports} } from 'eager-wasm';
import { readFileSync } from 'node:fs';
await init();
const MODEL = 'public/model/model.json';
const ref = JSON.parse(readFileSync('public/model/reference.json', 'utf8'));
${program}
console.log(JSON.stringify(result));
`,
  );
  const nodeOut = JSON.parse(sh('node', ['main.mjs'], app).trim().split('\n').pop());
  console.log(show(`Node ${process.version}`, nodeOut));
  if (!nodeOut.ok) failed = true;

  // Chromium: the installed package's files as plain ESM from a static server (no bundler).
  const esm = '/node_modules/eager-wasm/dist/index.js';
  writeFileSync(join(app, 'esm-main.js'), pageMain(esm, '/public/model', "'/esm-worker.js'"));
  writeFileSync(join(app, 'esm-worker.js'), workerMain(esm, '/public/model'));
  const page = '<!doctype html><meta charset="utf-8"><script type="module" src="/esm-main.js"></script>';
  const server = await startServer(app, { pages: { '/esm.html': page } });

  // Vite: an app importing the package by name, on Vite's dev server, and built for production
  // and served as static files.
  writeFileSync(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  writeFileSync(join(app, 'main.js'), pageMain('eager-wasm', '/model', "new URL('./worker.js', import.meta.url)"));
  writeFileSync(join(app, 'worker.js'), workerMain('eager-wasm', '/model'));
  sh(join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn', '--outDir', 'vite-dist'], app);
  const bundled = await startServer(join(app, 'vite-dist'));
  const { createServer } = await import('vite');
  const dev = await createServer({ root: app, configFile: false, logLevel: 'warn', server: { host: '127.0.0.1', port: 0 } });
  await dev.listen();

  const browser = await launchChromium();
  try {
    // Chromium has relaxed SIMD: init() must find and load that build, also through the bundler.
    for (const [label, url] of [
      ['plain ESM', `${server.origin}/esm.html`],
      ['Vite dev server', `${dev.resolvedUrls.local[0]}index.html`],
      ['Vite build', `${bundled.origin}/index.html`],
    ]) {
      const r = await runPage(browser.context, url, { prefix: `[${label}]` });
      for (const [where, x] of [['page', r.page], ['module worker', r.worker]]) {
        console.log(show(`Chromium, ${label}, ${where}`, x));
        // Relaxed SIMD everywhere; threads where the server isolates the page (not Vite's dev server).
        const cores = Math.min(8, availableParallelism());
        const threaded = label !== 'Vite dev server' && cores > 1;
        if (!x.ok || x.build !== (threaded ? `relaxed-simd, ${cores} threads` : 'relaxed-simd')) failed = true;
      }
    }
    if (!(await readmeExamples(app, browser))) failed = true;
    if (!(await readmePageBudget(app, browser))) failed = true;
  } finally {
    await browser.close();
    await server.close();
    await bundled.close();
    await dev.close();
  }

  if (!typecheck(app)) failed = true;
} catch (e) {
  console.error(e.stack ?? e);
  failed = true;
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(failed ? 'package test FAILED' : 'package test passed');
process.exit(failed ? 1 : 0);

/** The README's examples: each fenced js block right after an `<!-- example: NAME -->` line, by NAME. */
function readmeBlocks() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = new Map();
  for (const m of readme.matchAll(/^<!-- example: ([\w.-]+) -->\n```js\n([\s\S]*?)^```$/gm)) {
    if (blocks.has(m[1])) throw new Error(`README.md: two blocks marked <!-- example: ${m[1]} -->`);
    blocks.set(m[1], m[2]);
  }
  for (const name of ['page', 'worker', 'vite.config', 'node', 'tfjs']) {
    if (!blocks.has(name)) throw new Error(`README.md: no js block marked <!-- example: ${name} -->`);
  }
  return blocks;
}

/** What is wrong with a top-k result (class indices, their probabilities), or null. */
function topkProblem(classes, scores, k) {
  const isList = (a) => Array.isArray(a) && a.length === k && a.every((v) => typeof v === 'number');
  if (!isList(classes) || !isList(scores)) return `expected ${k} classes and ${k} probabilities, got ${JSON.stringify({ classes, scores })}`;
  if (!classes.every((c) => Number.isInteger(c) && c >= 0 && c < EXAMPLE_CLASSES) || new Set(classes).size !== k) {
    return `classes must be ${k} distinct indices in [0, ${EXAMPLE_CLASSES}): ${JSON.stringify(classes)}`;
  }
  if (!scores.every((p, i) => p >= 0 && p <= 1 && (i === 0 || p <= scores[i - 1]))) {
    return `probabilities must be in [0, 1], in descending order: ${JSON.stringify(scores)}`;
  }
  if (scores.reduce((a, b) => a + b, 0) > 1 + 1e-5) return `probabilities sum above 1: ${JSON.stringify(scores)}`;
  return null;
}

/** A PNG of an opaque w x h colour gradient (what the page example classifies). */
function gradientPng(w, h) {
  const raw = Buffer.alloc(h * (1 + w * 4));
  for (let y = 0; y < h; y++) {
    raw[y * (1 + w * 4)] = 0; // filter: none
    for (let x = 0; x < w; x++) {
      const o = y * (1 + w * 4) + 1 + x * 4;
      raw[o] = Math.round((255 * x) / (w - 1));
      raw[o + 1] = Math.round((255 * y) / (h - 1));
      raw[o + 2] = (x * 37 + y * 11) % 256;
      raw[o + 3] = 255;
    }
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * Opens `url`: resolves the page example's console line ('top classes', [...], 'probabilities',
 * [...]) and the harness's worker replies; rejects on a page error or after 90 s.
 */
async function runReadmePage(context, url, label) {
  const page = await context.newPage();
  try {
    let logged = null;
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.text().startsWith('top classes')) logged = Promise.all(m.args().map((a) => a.jsonValue()));
      else console.log(`[${label}]`, m.text());
    });
    await page.goto(url);
    const deadline = Date.now() + 90000;
    for (;;) {
      const state = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
      if (errors.length > 0 || state.error !== undefined) throw new Error(`${[...errors, state.error ?? ''].join('; ')}`);
      if (state.result !== undefined && logged !== null) return { pageLine: await logged, replies: state.result };
      if (Date.now() > deadline) throw new Error(`timed out (page example logged: ${logged !== null}, worker replies: ${state.result !== undefined})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await page.close();
  }
}

/** The README's examples, verbatim: Node, then the page and worker under Vite (dev and build). True if all pass. */
async function readmeExamples(app, browser) {
  let ok = true;
  const blocks = readmeBlocks();

  // Node: the example in a folder of its own with the model at ./model/.
  const nodeDir = join(app, 'readme-node');
  cpSync(EXAMPLE_MODEL, join(nodeDir, 'model'), { recursive: true });
  writeFileSync(join(nodeDir, 'example.mjs'), blocks.get('node'));
  try {
    const out = sh('node', ['example.mjs'], nodeDir);
    const top = out.match(/^class (\d+), probability (\d+\.\d{3})$/m);
    const problem = !top
      ? 'no "class N, probability P" line'
      : topkProblem([Number(top[1])], [Number(top[2])], 1) ?? (/^live tensors: 0$/m.test(out) ? null : 'no "live tensors: 0" line');
    console.log(`README Node example: ${out.trim().split('\n').join(' | ')} ${problem ? `WRONG: ${problem}` : 'ok'}`);
    if (problem) ok = false;
  } catch (e) {
    console.log(`README Node example FAILED: ${e.message}`);
    ok = false;
  }

  // The TF.js backend example, with @tensorflow/tfjs (the version this repository tests with)
  // installed next to the package from the npm cache.
  const tfjsDir = join(app, 'readme-tfjs');
  mkdirSync(tfjsDir, { recursive: true });
  writeFileSync(join(tfjsDir, 'example.mjs'), blocks.get('tfjs'));
  try {
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies['@tensorflow/tfjs'];
    sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `@tensorflow/tfjs@${version}`], app);
    const out = sh('node', ['example.mjs'], tfjsDir);
    const f10 = out.match(/^f\(10\) = (-?\d+\.\d)$/m);
    const entries = out.match(/^kernel cache entries: (\d+)$/m);
    const heap = out.match(/^heap in use \(bytes\): (\d+)$/m);
    const problem = !f10 || Math.abs(Number(f10[1]) - 21) > 0.15 ? 'no "f(10) = 21.0" line (the fit did not learn y = 2x + 1)'
      : !entries || Number(entries[1]) === 0 ? 'no kernel cache entries' : !heap || Number(heap[1]) === 0 ? 'no heap figure' : null;
    console.log(`README TF.js backend example: ${out.trim().split('\n').join(' | ')} ${problem ? `WRONG: ${problem}` : 'ok'}`);
    if (problem) ok = false;
  } catch (e) {
    console.log(`README TF.js backend example FAILED: ${e.message}`);
    ok = false;
  }

  // Vite: the page example as the app's entry, the worker example, the README's vite.config.js;
  // the model and an image in public/. The config imports vite: link the repository's.
  const dir = readmeViteApp(join(app, 'readme-vite'), blocks);
  writeFileSync(join(dir, 'worker.js'), blocks.get('worker'));
  writeFileSync(join(dir, 'harness.js'), harness);
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><meta charset="utf-8"><script type="module" src="./page.js"></script><script type="module" src="./harness.js"></script>',
  );
  if (!existsSync(join(app, 'node_modules/vite'))) symlinkSync(join(root, 'node_modules/vite'), join(app, 'node_modules/vite'), 'dir');

  const servers = [];
  try {
    sh(join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn', '--outDir', 'dist'], dir);
    const built = await startServer(join(dir, 'dist'));
    servers.push(() => built.close());
    const { createServer } = await import('vite');
    const dev = await createServer({ root: dir, configFile: join(dir, 'vite.config.js'), logLevel: 'warn', server: { host: '127.0.0.1', port: 0 } });
    await dev.listen();
    servers.push(() => dev.close());
    for (const [label, url] of [
      ['README page + worker, Vite dev server', `${dev.resolvedUrls.local[0]}index.html`],
      ['README page + worker, Vite build', `${built.origin}/index.html`],
    ]) {
      try {
        const { pageLine, replies } = await runReadmePage(browser.context, url, label);
        const [t1, classes, t2, scores] = pageLine;
        let problem = t1 === 'top classes' && t2 === 'probabilities' ? topkProblem(classes, scores, 3) : `unexpected line ${JSON.stringify(pageLine)}`;
        for (const r of replies) problem ??= topkProblem(r?.classes, r?.scores, 3);
        // The worker saw the same picture (an ImageBitmap of the page's image): the same answer.
        for (const r of problem ? [] : replies) {
          const same = r.classes.every((c, i) => c === classes[i]) && r.scores.every((p, i) => Math.abs(p - scores[i]) <= 1e-5);
          if (!same) problem ??= `the worker's answer ${JSON.stringify(r)} differs from the page's ${JSON.stringify({ classes, scores })}`;
        }
        console.log(`${label}: page top classes [${classes}] (${scores.map((p) => p.toFixed(3))}), worker answered ${replies.length}/${FRAMES} frames ${problem ? `WRONG: ${problem}` : 'ok'}`);
        if (problem) ok = false;
      } catch (e) {
        console.log(`${label} FAILED: ${e.message}`);
        ok = false;
      }
    }
  } catch (e) {
    console.log(`README Vite app FAILED: ${e.stack ?? e}`);
    ok = false;
  } finally {
    for (const close of servers) await close();
  }
  return ok;
}

/** A Vite project in `dir` with the README's page example and vite.config.js, the model and an image in public/. */
function readmeViteApp(dir, blocks) {
  mkdirSync(join(dir, 'public'), { recursive: true });
  cpSync(EXAMPLE_MODEL, join(dir, 'public/model'), { recursive: true });
  writeFileSync(join(dir, 'public/photo.png'), gradientPng(40, 30));
  writeFileSync(join(dir, 'page.js'), blocks.get('page'));
  writeFileSync(join(dir, 'vite.config.js'), blocks.get('vite.config'));
  return dir;
}

/**
 * The README's page example alone, built by Vite with the README's config and run in Chromium, as
 * a user's page runs it: it must make no synchronous request (the on-demand part arrives
 * asynchronously, when the page is idle), and the JS and .wasm it downloads before it shows its
 * result, gzipped, must be at most what TF.js needs for the same job (tfjs-core, -converter and
 * -backend-wasm minified, and the SIMD .wasm, as bench/run.mjs counts them). True if both hold.
 */
async function readmePageBudget(app, browser) {
  const dir = readmeViteApp(join(app, 'readme-page-budget'), readmeBlocks());
  writeFileSync(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./page.js"></script>');
  let server;
  let page;
  try {
    sh(join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn', '--outDir', 'dist'], dir);
    // As most hosts serve a page: not cross-origin isolated, so init() loads the split
    // single-threaded build (an isolated page gets the threaded build, not split: docs/threads.md).
    server = await startServer(join(dir, 'dist'), { isolated: false });
    page = await browser.context.newPage();
    await page.addInitScript(() => {
      // The page goes idle while it awaits the model and the image, and init() then prefetches the
      // on-demand part: idle callbacks wait for the result here, so that what is counted before it
      // is what the example needs, not what the idle page fetched ahead.
      const idle = [];
      window.requestIdleCallback = (cb) => idle.push(cb);
      window.__releaseIdle = () => idle.splice(0).forEach((cb) => cb({ didTimeout: false, timeRemaining: () => 50 }));
      const open = XMLHttpRequest.prototype.open;
      window.__syncRequests = [];
      XMLHttpRequest.prototype.open = function (method, url, async, ...rest) {
        if (async === false) window.__syncRequests.push(String(url));
        return open.call(this, method, url, async, ...rest);
      };
    });
    const before = []; // what was requested before the example printed its result
    let shown = false;
    page.on('request', (r) => {
      if (!shown) before.push(new URL(r.url()).pathname);
    });
    const result = new Promise((resolve, reject) => {
      page.on('pageerror', (e) => reject(e));
      page.on('console', (m) => {
        if (m.text().startsWith('top classes')) {
          shown = true;
          resolve();
        }
      });
      setTimeout(() => reject(new Error('the page example printed nothing in 90 s')), 90000);
    });
    await page.goto(`${server.origin}/index.html`);
    await result;
    // The on-demand part arrives once the page is idle: no synchronous request then either.
    await page.evaluate(() => window.__releaseIdle());
    await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /_cold.*\.wasm$/.test(e.name)), null, { timeout: 15000 });
    const sync = await page.evaluate(() => window.__syncRequests);
    const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
    const assets = [...new Set(before)].filter((p) => /\.(m?js|wasm)$/.test(p));
    const ours = assets.reduce((n, p) => n + gz(join(dir, 'dist', p)), 0);
    const nm = (p) => join(root, 'node_modules', p);
    const tfjs = [
      '@tensorflow/tfjs-core/dist/tf-core.min.js',
      '@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js',
      '@tensorflow/tfjs-converter/dist/tf-converter.min.js',
      '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm',
    ].reduce((n, p) => n + gz(nm(p)), 0);
    const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
    const problems = [];
    if (sync.length > 0) problems.push(`synchronous requests: ${sync.join(', ')}`);
    if (assets.some((p) => /_cold.*\.wasm$/.test(p))) problems.push('the on-demand part was needed before the result');
    if (ours > tfjs) problems.push(`downloads ${kb(ours)} gzipped, TF.js ${kb(tfjs)}`);
    console.log(
      `README page example, Vite build: ${assets.length} JS/.wasm files before the result, ${kb(ours)} gzipped ` +
        `(TF.js for the same page: ${kb(tfjs)}, ${(ours / tfjs).toFixed(2)}x); synchronous requests: ${sync.length} ` +
        `${problems.length ? `WRONG: ${problems.join('; ')}` : 'ok'}`,
    );
    return problems.length === 0;
  } catch (e) {
    console.log(`README page budget FAILED: ${e.stack ?? e}`);
    return false;
  } finally {
    await page?.close();
    await server?.close();
  }
}

/**
 * The README's examples (page, worker, Node), verbatim, with tests/types/dtypes.ts as a strict
 * TypeScript project (JS checked too) against the installed package: true when tsc passes.
 */
function typecheck(app) {
  const tsc = process.env.TSC ?? join(root, 'node_modules/.bin/tsc');
  if (!existsSync(tsc)) {
    console.log(`FAILED: the strict TypeScript check: no tsc at ${tsc} (the typescript devDependency: run npm ci)`);
    return false;
  }
  let blocks;
  try {
    blocks = readmeBlocks();
  } catch (e) {
    console.log(`FAIL: ${e.message}`);
    return false;
  }
  const examples = ['page', 'worker', 'node'];
  const dir = join(app, 'ts');
  mkdirSync(dir);
  const files = examples.map((name) => {
    writeFileSync(join(dir, `readme-${name}.js`), blocks.get(name));
    return `readme-${name}.js`;
  });
  // And the dtype typing, with the mistakes it must refuse.
  cpSync(join(root, 'tests/types/dtypes.ts'), join(dir, 'dtypes.ts'));
  files.push('dtypes.ts');
  const compilerOptions = {
    strict: true,
    allowJs: true,
    checkJs: true,
    noEmit: true,
    target: 'es2022',
    module: 'es2022',
    moduleResolution: 'bundler',
    lib: ['es2022', 'dom'],
    types: ['node'],
    typeRoots: [join(root, 'node_modules/@types')],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
  const code = examples.map((name) => blocks.get(name)).join('\n');
  if (/\bas\s+(unknown|any|[A-Z])|<any>|!\.|@type\s*\{[^}]*\}\s*\*\/\s*\(/.test(code)) {
    console.log('FAIL: the README examples use a cast or non-null assertion');
    return false;
  }
  try {
    execFileSync(tsc, ['-p', dir], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    console.log(`TypeScript (tsc --strict --checkJs --noEmit): the README's ${examples.length} examples and tests/types/dtypes.ts compile with no cast`);
    return true;
  } catch (e) {
    console.log(`FAIL: the README's examples do not type-check strictly:\n${e.stdout}${e.stderr}`);
    return false;
  }
}
