#!/usr/bin/env node
// The npm package end to end: `npm pack`, install the tarball into an empty temp project, import it
// in Node 20, run a MatMul (or AddV2 while MatMul is not registered), load a model (by file path in
// Node, by URL in browsers), predict and compare with TF's outputs, and fromPixels; then the same in
// headless Chromium, each on the page and in a module worker: the installed package served as plain
// ESM, an app on Vite's dev server, and the same app built by Vite (which must emit the .wasm as an
// asset from the package's `new URL(..., import.meta.url)`). Last, a strict TypeScript project made
// of the README's npm examples, verbatim, and tests/types/dtypes.ts must compile against the
// package's types (`tsc --strict --noEmit`, no casts): tsc from node_modules/.bin or $TSC (failing,
// loudly, when there is none).
// Needs a built dist/ (`npm run build`).

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, runPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'eager-wasm-pack-'));
const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

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
const coldOk = wasmFeatures().coldCodeLoaded && Math.abs(at.dataSync()[1] - Math.PI / 2) < 1e-6;
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
const build = wasmFeatures().relaxedSimd ? 'relaxed-simd' : 'simd';
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
        if (!x.ok || x.build !== 'relaxed-simd') failed = true;
      }
    }
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

/**
 * The README's npm examples (every js block of its "Use it from npm" section), verbatim, as a
 * strict TypeScript project against the installed package: true when tsc passes.
 */
function typecheck(app) {
  const tsc = process.env.TSC ?? join(root, 'node_modules/.bin/tsc');
  if (!existsSync(tsc)) {
    console.log(`FAILED: the strict TypeScript check: no tsc at ${tsc} (the typescript devDependency: run npm ci)`);
    return false;
  }
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split('\n## Use it from npm\n')[1]?.split('\n## ')[0] ?? '';
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  if (blocks.length === 0) {
    console.log('FAIL: no js examples found in the README section "Use it from npm"');
    return false;
  }
  const dir = join(app, 'ts');
  mkdirSync(dir);
  const files = blocks.map((code, i) => {
    writeFileSync(join(dir, `readme-${i + 1}.ts`), code);
    return `readme-${i + 1}.ts`;
  });
  // And the dtype typing, with the mistakes it must refuse.
  cpSync(join(root, 'tests/types/dtypes.ts'), join(dir, 'dtypes.ts'));
  files.push('dtypes.ts');
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'es2022',
    module: 'es2022',
    moduleResolution: 'bundler',
    lib: ['es2022', 'dom'],
    types: ['node'],
    typeRoots: [join(root, 'node_modules/@types')],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
  if (/\bas\s+(unknown|any|[A-Z])|<any>|!\./.test(blocks.join('\n'))) {
    console.log('FAIL: the README examples use a cast or non-null assertion');
    return false;
  }
  try {
    execFileSync(tsc, ['-p', dir], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    console.log(`TypeScript (tsc --strict --noEmit): the README's ${blocks.length} npm examples and tests/types/dtypes.ts compile with no cast`);
    return true;
  } catch (e) {
    console.log(`FAIL: the README's npm examples do not compile strictly:\n${e.stdout}${e.stderr}`);
    return false;
  }
}
