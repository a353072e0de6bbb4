#!/usr/bin/env node
// `npm run bench`: eager-wasm vs TF.js (wasm backend) vs onnxruntime-web, in one headless Chromium
// session and in Node 20, on identical inputs; prints the tables, writes bench/results.json and
// bench/RESULTS.md. See bench/README.md.
//
//   npm run bench                       # both environments, full run (a few minutes)
//   npm run bench -- --quick            # smoke run: few samples
//   npm run bench -- --env node         # or --env chromium
//   npm run bench -- --only matmul,dispatch
//   npm run bench -- --runs 3           # each environment 3 times; tables show the medians of the runs
//   npm run bench -- --no-write         # don't touch results.json / RESULTS.md
//   npm run bench -- --plain-simd       # eager-wasm's plain SIMD128 build where relaxed SIMD would load
//   npm run bench -- --corrupt tfjs     # self-test: falsify one runtime's output, expect MISMATCH + exit 1
//   npm run bench -- --threads 2        # every runtime threaded, 2 threads (Chromium only: TF.js's
//                                       # threaded build needs a cross-origin-isolated page); writes
//                                       # bench/results-threads.json, bench/RESULTS-threads.md

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rolldown } from 'rolldown';
import { launchChromium } from '../scripts/lib/browser.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { checkSummary, evaluateTargets, markdownReport, mergeRuns, targetsText, textTable } from './report.mjs';
import { RUNTIME_LABELS } from './suite.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const envArg = arg('--env') ?? 'all';
const only = arg('--only')?.split(',').filter(Boolean) ?? null;
const corrupt = arg('--corrupt') ?? null; // self-test: eager | tfjs | ort gets a wrong output
const plainSimd = argv.includes('--plain-simd'); // eager-wasm's plain SIMD128 build even where relaxed SIMD runs
const threads = Math.max(1, Number(arg('--threads') ?? 1) | 0);
const envs = threads > 1 ? ['chromium'] : envArg === 'all' ? ['chromium', 'node'] : envArg.split(',');
if (threads > 1 && envArg !== 'all' && envArg !== 'chromium') console.warn('--threads: Chromium only (TF.js wasm has no threads in Node)');
// Each environment this many times; the tables show the medians of the runs (see mergeRuns).
const nRuns = Math.max(1, Number(arg('--runs') ?? 1) | 0);

// ------------------------------------------------------------------ the built package
function newestMtime(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}
const distWasm = join(root, 'dist/eager_wasm_bg.wasm');
if (!existsSync(join(root, 'dist/index.js')) || !existsSync(distWasm)) {
  if (argv.includes('--no-build')) {
    console.error('dist/ is missing: run `npm run build` first.');
    process.exit(1);
  }
  console.log('dist/ is missing: running `npm run build` ...');
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
if (existsSync(join(root, 'src')) && newestMtime(join(root, 'src')) > statSync(distWasm).mtimeMs) {
  console.warn('WARNING: src/ is newer than dist/eager_wasm_bg.wasm: the numbers are of an older build (npm run build).');
}

// ------------------------------------------------------------------ sizes (same in every env)
function fileSize(p) {
  if (!existsSync(p)) return null;
  const b = readFileSync(p);
  return { file: p.slice(root.length + 1), raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
}
const nm = (p) => join(root, 'node_modules', p);
const sizes = {
  eager: fileSize(distWasm),
  tfjs: fileSize(nm('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm')),
  ort: fileSize(nm('onnxruntime-web/dist/ort-wasm-simd-threaded.wasm')),
};
// Everything a page downloads to run a graph model (the benchmark page's files): TF.js parses
// model.json and dispatches ops in its JS bundles, eager-wasm and ORT in their wasm.
function downloadSize(paths) {
  const parts = paths.map(fileSize);
  if (parts.some((p) => p === null)) return null;
  return {
    file: parts.map((p) => p.file.split('/').pop()).join(' + '),
    raw: parts.reduce((a, p) => a + p.raw, 0),
    gzip: parts.reduce((a, p) => a + p.gzip, 0),
  };
}
// The peers' JS is counted as they publish it, minified (tf-*.min.js, ort.wasm.min.mjs); ours is
// bundled and minified the same way, as any production page ships it (rolldown: vite's bundler).
// The entry's dynamic imports (the threaded build's glue) are chunks a page that is not
// cross-origin isolated never loads: the entry chunk and what it imports statically are counted.
async function minifiedBundle(entry) {
  try {
    const bundle = await rolldown({ input: entry, platform: 'browser', logLevel: 'silent' });
    const { output } = await bundle.generate({ format: 'esm', minify: true });
    await bundle.close();
    const chunks = new Map(output.filter((c) => c.type === 'chunk').map((c) => [c.fileName, c]));
    const loaded = new Set();
    const visit = (c) => {
      if (loaded.has(c)) return;
      loaded.add(c);
      for (const f of c.imports) visit(chunks.get(f));
    };
    visit(output.find((c) => c.type === 'chunk' && c.isEntry));
    const parts = [...loaded].map((c) => Buffer.from(c.code));
    return {
      file: `eager-wasm.min.js (dist/*.js bundled: ${loaded.size} chunks before the first result)`,
      raw: parts.reduce((n, b) => n + b.length, 0),
      gzip: parts.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0),
    };
  } catch (e) {
    console.warn(`cannot bundle dist/index.js for the download size: ${e.message}`);
    return null;
  }
}
const eagerJs = existsSync(join(root, 'dist/index.js')) ? await minifiedBundle(join(root, 'dist/index.js')) : null;
const eagerWasm = fileSize(distWasm);
sizes.download = {
  // The build's on-demand part (js/cold-code.js): counted where a case loaded it (report.mjs).
  eagerCold: fileSize(join(root, 'dist/eager_wasm_cold.wasm')),
  // The graph-model build (init()'s default; its primary part) and the whole JS wrapper, minified.
  eager:
    eagerJs && eagerWasm
      ? { file: `${eagerJs.file} + ${eagerWasm.file.split('/').pop()}`, raw: eagerJs.raw + eagerWasm.raw, gzip: eagerJs.gzip + eagerWasm.gzip }
      : null,
  tfjs: downloadSize([
    nm('@tensorflow/tfjs-core/dist/tf-core.min.js'),
    nm('@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js'),
    nm('@tensorflow/tfjs-converter/dist/tf-converter.min.js'),
    nm('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm'),
  ]),
  ort: downloadSize([
    nm('onnxruntime-web/dist/ort.wasm.min.mjs'),
    nm('onnxruntime-web/dist/ort-wasm-simd-threaded.mjs'),
    nm('onnxruntime-web/dist/ort-wasm-simd-threaded.wasm'),
  ]),
};

// ------------------------------------------------------------------ environments
async function runChromium() {
  const server = await startServer(root, { log: (m) => console.log(m) });
  let browser;
  try {
    // A benchmark tab must not be throttled.
    browser = await launchChromium({
      args: ['--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows'],
    });
    const { context } = browser;
    const page = context.pages()[0] ?? (await context.newPage());
    const wasmRequests = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.endsWith('.wasm')) wasmRequests.push(u.pathname.split('/').pop());
    });
    page.on('console', (m) => console.log(`  [chromium] ${m.text()}`));
    page.on('pageerror', (e) => console.log(`  [chromium] page error: ${e.stack ?? e}`));
    await page.goto(`${server.origin}/bench/page.html`);
    await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60000 });
    page.setDefaultTimeout(0);
    const result = await page.evaluate((opts) => window.runBench(opts), { quick, only, corrupt, plainSimd, threads });
    result.env.browserVersion = `Chromium ${context.browser()?.version() ?? ''}`.trim();
    result.env.wasmRequests = [...new Set(wasmRequests)];
    return result;
  } finally {
    await browser?.close();
    await server.close();
  }
}

function runNode() {
  const tmp = mkdtempSync(join(os.tmpdir(), 'eager-bench-node-'));
  const out = join(tmp, 'result.json');
  const a = [join(root, 'bench/node.mjs'), '--out', out];
  if (quick) a.push('--quick');
  if (plainSimd) a.push('--plain-simd');
  if (only) a.push('--only', only.join(','));
  if (corrupt) a.push('--corrupt', corrupt);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, a, { cwd: root, stdio: ['ignore', 'inherit', 'pipe'] });
    child.stderr.on('data', (d) => {
      for (const line of String(d).split('\n')) if (line) console.log(`  [node] ${line}`);
    });
    child.on('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`bench/node.mjs exited with ${code}`);
        resolve(JSON.parse(readFileSync(out, 'utf8')));
      } catch (e) {
        reject(e);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  });
}

const git = (...a) => {
  try {
    return execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
};
const meta = {
  date: new Date().toISOString(),
  commit: git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? ' (+ uncommitted changes)' : ''),
  quick,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? '?',
  node: process.version,
  threads,
  loadBefore: os.loadavg(),
};
const loadNote = (l) =>
  `MACHINE LOAD: load average ${l[0].toFixed(2)} on ${meta.cpus} cores. Other processes compete for the CPU; these are noisy numbers, retake them on a quiet machine before quoting.`;
if (meta.loadBefore[0] > 0.3) console.log(`\n*** ${loadNote(meta.loadBefore)} ***\n`);

const results = [];
let failed = false;
for (const e of envs) {
  console.log(`\n=== ${e}${quick ? ' (--quick)' : ''} ===`);
  try {
    if (e !== 'chromium' && e !== 'node') throw new Error(`unknown --env ${e}`);
    const runs = [];
    for (let i = 0; i < nRuns; i++) {
      if (nRuns > 1) console.log(`--- ${e}: run ${i + 1} of ${nRuns}`);
      const before = os.loadavg()[0];
      const r = e === 'chromium' ? await runChromium() : await runNode();
      r.env.load = { before, after: os.loadavg()[0] };
      runs.push(r);
    }
    results.push(mergeRuns(runs));
  } catch (err) {
    failed = true;
    console.error(`\n!!! ${e} run failed: ${err?.stack ?? err}\n`);
  }
}
meta.loadAfter = os.loadavg();
const worstLoad = Math.max(meta.loadBefore[0], meta.loadAfter[0], meta.loadAfter[1]);
if (worstLoad > 0.3) meta.loadWarning = loadNote(meta.loadBefore[0] >= meta.loadAfter[0] ? meta.loadBefore : meta.loadAfter);

const targets = {};
for (const r of results) {
  targets[r.env.name] = evaluateTargets(r, sizes);
  const title = r.env.name === 'chromium' ? `Chromium (${r.env.browserVersion})` : `Node ${r.env.version}`;
  console.log(`\n## ${title}${quick ? '  [--quick: smoke run, not for quoting]' : ''}\n`);
  console.log(textTable(r, sizes));
  console.log('\nRatios: peer time / eager-wasm time (> 1: eager-wasm faster); size: peer bytes / eager-wasm bytes.');
  console.log(checkSummary(r) + ` Load average: ${r.env.load.before.toFixed(2)} before, ${r.env.load.after.toFixed(2)} after.`);
  console.log('Targets:');
  console.log(targetsText(targets[r.env.name]));
  for (const c of r.cases) {
    if (c.mismatches?.length) console.log(`\n!!!!!!!! CHECKSUM MISMATCH in ${c.id}: ${c.mismatches.map((rt) => RUNTIME_LABELS[rt]).join(', ')} differ(s) from ${c.reference} !!!!!!!!`);
  }
}
if (meta.loadWarning) console.log(`\n*** ${meta.loadWarning} ***`);

if (!argv.includes('--no-write') && results.length) {
  const json = { meta, sizes, environments: results, targets };
  const tag = threads > 1 ? '-threads' : '';
  writeFileSync(join(root, `bench/results${tag}.json`), JSON.stringify(json, null, 1) + '\n');
  writeFileSync(join(root, `bench/RESULTS${tag}.md`), markdownReport({ meta, envs: results, sizes, targets }));
  console.log(`\nwrote bench/results${tag}.json and bench/RESULTS${tag}.md`);
}
const mismatch = results.some((r) => r.cases.some((c) => c.mismatches?.length));
process.exit(failed || mismatch ? 1 : 0);
