// Runs TensorFlow.js's own test suite (tfjs-core 4.22's compiled jasmine specs, dist/tests.js:
// every *_test.js, unfiltered) against a TF.js backend, in Node, the way TF.js's backends run it
// (setTestEnvs with isDataSync: true), and prints passed / failed / skipped with the failing spec
// groups.
//
//   node scripts/tfjs-suite.mjs [--env node|chromium] [--backend eager-wasm|cpu] [--grep TEXT]
//                               [--json FILE] [--expect-failures FILE] [--list-failures]
//
// tfjs-core's dist/ is ESM with extensionless imports and bare `require` calls, so Node loads it
// neither as ESM nor as CommonJS: it is bundled first (esbuild, ~1 s), with every @tensorflow/*
// import resolved to one copy of tfjs-core. `describeWithFlags` blocks whose environment predicate
// fails (browser-only, WebGL-only, async-backend-only) are registered as skipped instead of being
// dropped, so the counts add up to the whole suite. --expect-failures FILE (one spec name per line,
// lines starting with `#` are comments) makes the run fail on any failure not listed and on any listed spec that passes.
// In Chromium (`--env chromium`) the same bundle, built for the browser, runs in a page served from
// target/tfjs-suite-chromium/.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium, runPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i < 0 ? dflt : args[i + 1];
};
const backend = opt('--backend', 'eager-wasm');
const grep = opt('--grep', '');
const jsonOut = opt('--json', '');
const expectFile = opt('--expect-failures', '');
const listFailures = args.includes('--list-failures');
const writeExpected = opt('--write-expected', '');
const envName = opt('--env', 'node');

const BACKENDS = {
  'eager-wasm': `import '${join(root, 'dist', 'tfjs.js').replaceAll('\\', '/')}';`,
  cpu: `import '@tensorflow/tfjs-backend-cpu';`,
};
if (!(backend in BACKENDS)) throw new Error(`unknown backend ${backend} (${Object.keys(BACKENDS)})`);

// The one edit made to tfjs-core's sources: a describeWithFlags block this environment does not
// satisfy is registered as xdescribe (its specs count as skipped) instead of vanishing.
const SKIP_FROM = `        if (envSatisfiesConstraints(env(), testEnv, constraints)) {
            const testName = name + ' ' + testEnv.name + ' ' + JSON.stringify(testEnv.flags || {});
            executeTests(testName, tests, testEnv);
        }`;
const SKIP_TO = `${SKIP_FROM}
        else {
            xdescribe(name + ' ' + testEnv.name + ' (environment not supported)', () => {
                try { tests(testEnv); } catch (e) { /* registration needing the env */ }
            });
        }`;

const skipPatch = {
  name: 'skip-unsupported-envs',
  setup(b) {
    b.onLoad({ filter: /tfjs-core[\\/]dist[\\/]jasmine_util\.js$/ }, (a) => {
      const text = readFileSync(a.path, 'utf8');
      if (!text.includes(SKIP_FROM)) throw new Error('tfjs-core jasmine_util.js changed: update SKIP_FROM');
      return { contents: text.replace(SKIP_FROM, SKIP_TO), loader: 'js' };
    });
  },
};

const chromium = envName === 'chromium';
const outDir = join(root, 'target', `tfjs-suite-${envName}`);
mkdirSync(outDir, { recursive: true });
// The bundle imports eager-wasm's dist/ (bundled too: one copy of tfjs-core), whose files find
// their .wasm next to themselves: the bundle's folder gets a copy.
for (const f of readdirSync(join(root, 'dist'))) if (f.endsWith('.wasm')) copyFileSync(join(root, 'dist', f), join(outDir, f));
const write = (name, text) => writeFileSync(join(outDir, name), text);
// In Chromium jasmine-core loads as a classic script, as in TF.js's own browser runs: bundled into
// the module it would run in strict mode, where a spy called without a receiver sees `undefined`
// as `this` instead of the window (tfjs-core's http tests check that fetch was called on window).
const jasmineJs = join(root, 'node_modules', 'jasmine-core', 'lib', 'jasmine-core', 'jasmine.js');
if (chromium) copyFileSync(jasmineJs, join(outDir, 'jasmine.js'));
write(
  'jasmine-setup.mjs',
  `${chromium ? 'const jasmineRequire = globalThis.jasmineRequire;' : "import jasmineRequire from 'jasmine-core/lib/jasmine-core/jasmine.js';"}
const j = jasmineRequire.core(jasmineRequire);
const env = j.getEnv();
Object.assign(globalThis, jasmineRequire.interface(j, env));
j.DEFAULT_TIMEOUT_INTERVAL = 20000;
`,
);
write(
  'test-env.mjs',
  `import { setTestEnvs } from '@tensorflow/tfjs-core/dist/jasmine_util';
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import '@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops';
${BACKENDS[backend]}
setTestEnvs([{ name: '${backend}', backendName: '${backend}', isDataSync: true }]);
`,
);
// The runner: counts specs by status and keeps each failure's first message.
write(
  'entry.mjs',
  `import './jasmine-setup.mjs';
import './test-env.mjs';
import '@tensorflow/tfjs-core/dist/tests';
export async function runSuite(grep) {
  const results = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const env = globalThis.jasmine.getEnv();
  env.addReporter({
    specDone(r) {
      if (r.status === 'passed') results.passed++;
      else if (r.status === 'failed') {
        results.failed++;
        const msg = String(r.failedExpectations[0]?.message ?? '').split('\\n')[0].slice(0, 300);
        results.failures.push({ name: r.fullName, message: msg });
      } else results.skipped++;
    },
  });
  env.configure({ random: false, ...(grep ? { specFilter: (spec) => spec.getFullName().includes(grep) } : {}) });
  await env.execute();
  return results;
}
`,
);
const bundle = join(outDir, 'suite.mjs');
await build({
  entryPoints: [join(outDir, 'entry.mjs')],
  bundle: true,
  outfile: bundle,
  format: 'esm',
  platform: chromium ? 'browser' : 'node',
  // tfjs-core's ESM build (dist/index.js), not its CommonJS bundle: one copy for tests and backend.
  mainFields: ['module', 'main'],
  nodePaths: [join(root, 'node_modules')],
  banner: chromium ? {} : { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  define: chromium ? { global: 'globalThis' } : {},
  // Node-only modules tfjs-core and the runtime load behind platform checks.
  external: chromium ? ['node:*', 'fs', 'path', 'url', 'util', 'worker_threads', 'node-fetch', 'crypto'] : [],
  plugins: [skipPatch],
  logLevel: 'error',
  sourcemap: false,
  // tfjs-core's package.json marks most files side-effect free; its test files are not.
  ignoreAnnotations: true,
});

const t0 = Date.now();
let results;
if (chromium) {
  write('index.html', `<!doctype html><meta charset="utf-8"><script src="jasmine.js"></script><script type="module">
import { runSuite } from './suite.mjs';
runSuite(${JSON.stringify(grep)}).then((r) => { window.__result = r; }, (e) => { window.__error = String(e && e.stack || e); });
</script>`);
  const server = await startServer(outDir);
  const browser = await launchChromium();
  try {
    results = await runPage(browser.context, `${server.origin}/index.html`, { timeoutMs: 30 * 60 * 1000, echoConsole: false });
  } finally {
    await browser.close();
    await server.close();
  }
} else {
  const { runSuite } = await import(pathToFileURL(bundle).href);
  results = await runSuite(grep);
}

const groups = new Map();
for (const f of results.failures) {
  // A failure's group: its spec name up to the test environment's name.
  const g = f.name.split(` ${backend} `)[0];
  groups.set(g, (groups.get(g) ?? 0) + 1);
}
console.log(
  `tfjs-core 4.22 suite on '${backend}' (${chromium ? 'Chromium' : 'Node'}): ${results.passed} passed, ${results.failed} failed, ` +
    `${results.skipped} skipped, ${((Date.now() - t0) / 1000).toFixed(0)} s`,
);
if (results.failed > 0) {
  console.log('failing spec groups (count):');
  for (const [g, n] of [...groups].sort((a, b) => b[1] - a[1])) console.log(`  ${n}\t${g}`);
}
if (listFailures) for (const f of results.failures) console.log(`FAIL ${f.name}\n     ${f.message}`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 1));
if (writeExpected) {
  // The failing specs by group, each group headed by its first failure's message (the reason).
  const byGroup = new Map();
  for (const f of results.failures) {
    const g = f.name.split(` ${backend} `)[0];
    if (!byGroup.has(g)) byGroup.set(g, []);
    byGroup.get(g).push(f);
  }
  const lines = [
    `# Specs of tfjs-core 4.22's suite that fail on '${backend}' in ${chromium ? 'Chromium' : 'Node'}, by group, with the`,
    '# first failure message of each group. Written by scripts/tfjs-suite.mjs --write-expected; the',
    '# suite run fails on a failure not listed here and on a listed spec that passes.',
  ];
  for (const [g, fs] of [...byGroup].sort((a, b) => a[0].localeCompare(b[0]))) {
    lines.push('', `# ${g}: ${fs[0].message.replace(/\s+/g, ' ').slice(0, 160)}`, ...fs.map((f) => f.name));
  }
  writeFileSync(writeExpected, lines.join('\n') + '\n');
}

let ok = true;
if (expectFile) {
  const expected = new Set(
    readFileSync(expectFile, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
  const failed = new Set(results.failures.map((f) => f.name.trim()));
  const unexpected = [...failed].filter((n) => !expected.has(n));
  const fixed = [...expected].filter((n) => !failed.has(n) && !grep);
  for (const n of unexpected) console.log(`UNEXPECTED FAILURE: ${n}`);
  for (const n of fixed) console.log(`LISTED BUT NOT FAILING (remove it from ${expectFile}): ${n}`);
  ok = unexpected.length === 0 && fixed.length === 0;
} else ok = results.failed === 0;
process.exit(ok ? 0 : 1);
