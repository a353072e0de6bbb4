#!/usr/bin/env node
// The npm package end to end: `npm pack`, install the tarball into an empty temp project, import it
// in Node 20 and run a MatMul (or AddV2 while MatMul is not registered), then do the same in headless
// Chromium twice: the installed package served as plain ESM, and an app bundled by Vite (which must
// emit the .wasm as an asset from the package's `new URL(..., import.meta.url)`).
// Needs a built dist/ (`npm run build`).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, runPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'eager-wasm-pack-'));
const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

// What both runtimes execute: the README example's first lines.
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
ctx.dispose();
const build = wasmFeatures().relaxedSimd ? 'relaxed-simd' : 'simd';
const result = { op, got, want, build, ok: got === want && errOk };
`;

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

  // Node: import by package name, through the exports map.
  writeFileSync(
    join(app, 'main.mjs'),
    `import { init, EagerContext, EagerError, registeredOps, wasmFeatures } from 'eager-wasm';\nawait init();\n${program}\nconsole.log(JSON.stringify(result));\n`,
  );
  const nodeOut = JSON.parse(sh('node', ['main.mjs'], app).trim().split('\n').pop());
  console.log(`Node ${process.version} (${nodeOut.build} build): ${nodeOut.op} -> [${nodeOut.got}] ${nodeOut.ok ? 'ok' : 'WRONG'}`);
  if (!nodeOut.ok) failed = true;

  // Chromium: the installed package's files as plain ESM from a static server (no bundler).
  const page = `<!doctype html><meta charset="utf-8"><script type="module">
try {
  const { init, EagerContext, EagerError, registeredOps, wasmFeatures } = await import('/node_modules/eager-wasm/dist/index.js');
  await init();
  ${program}
  window.__result = result;
} catch (e) { window.__error = (e && e.stack) || String(e); }
</script>`;
  const server = await startServer(app, { pages: { '/index.html': page } });

  // Vite: an app importing the package by name, built for production and served as static files.
  writeFileSync(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  writeFileSync(
    join(app, 'main.js'),
    `import { init, EagerContext, EagerError, registeredOps, wasmFeatures } from 'eager-wasm';
(async () => {
  try {
    await init();
    ${program}
    window.__result = result;
  } catch (e) { window.__error = (e && e.stack) || String(e); }
})();
`,
  );
  sh(join(root, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn', '--outDir', 'vite-dist'], app);
  const bundled = await startServer(join(app, 'vite-dist'));

  const browser = await launchChromium();
  try {
    const r = await runPage(browser.context, `${server.origin}/index.html`, { prefix: '[chromium]' });
    // Chromium has relaxed SIMD: init() must find and load that build, also through the bundler.
    console.log(`Chromium, plain ESM (${r.build} build): ${r.op} -> [${r.got}] ${r.ok ? 'ok' : 'WRONG'}`);
    if (!r.ok || r.build !== 'relaxed-simd') failed = true;
    const v = await runPage(browser.context, `${bundled.origin}/index.html`, { prefix: '[vite]' });
    console.log(`Chromium, Vite bundle (${v.build} build): ${v.op} -> [${v.got}] ${v.ok ? 'ok' : 'WRONG'}`);
    if (!v.ok || v.build !== 'relaxed-simd') failed = true;
  } finally {
    await browser.close();
    await server.close();
    await bundled.close();
  }
} catch (e) {
  console.error(e.stack ?? e);
  failed = true;
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(failed ? 'package test FAILED' : 'package test passed');
process.exit(failed ? 1 : 0);
