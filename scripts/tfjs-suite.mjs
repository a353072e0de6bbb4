// Runs TensorFlow.js's own test suite (tfjs-core 4.22's compiled jasmine specs, dist/tests.js:
// every *_test.js, unfiltered) against a TF.js backend, in Node, the way TF.js's backends run it
// (setTestEnvs with isDataSync: true), and prints passed / failed / skipped with the failing spec
// groups.
//
//   node scripts/tfjs-suite.mjs [--backend eager-wasm|cpu] [--grep TEXT] [--json FILE]
//                               [--expect-failures FILE] [--list-failures]
//
// tfjs-core's dist/ is ESM with extensionless imports and bare `require` calls, so Node loads it
// neither as ESM nor as CommonJS: it is bundled first (esbuild, ~1 s), with every @tensorflow/*
// import resolved to one copy of tfjs-core. `describeWithFlags` blocks whose environment predicate
// fails (browser-only, WebGL-only, async-backend-only) are registered as skipped instead of being
// dropped, so the counts add up to the whole suite. --expect-failures FILE (one spec name per line,
// `#` comments) makes the run fail on any failure not listed and on any listed spec that passes.
//
// `--bundle-only DIR` writes the bundle (for the Chromium run, scripts/tfjs-suite-chromium.mjs).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
const bundleOnly = opt('--bundle-only', '');

const BACKENDS = {
  'eager-wasm': `import '${join(root, 'dist', 'tfjs.js')}';`,
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

const outDir = bundleOnly ? resolve(bundleOnly) : join(root, 'target', 'tfjs-suite');
mkdirSync(outDir, { recursive: true });
const setup = join(outDir, 'jasmine-setup.mjs');
writeFileSync(
  setup,
  `import jasmineRequire from 'jasmine-core/lib/jasmine-core/jasmine.js';
const j = jasmineRequire.core(jasmineRequire);
const env = j.getEnv();
Object.assign(globalThis, jasmineRequire.interface(j, env));
j.DEFAULT_TIMEOUT_INTERVAL = 20000;
`,
);
const envFile = join(outDir, 'test-env.mjs');
writeFileSync(
  envFile,
  `import { setTestEnvs } from '@tensorflow/tfjs-core/dist/jasmine_util';
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import '@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops';
${BACKENDS[backend]}
setTestEnvs([{ name: '${backend}', backendName: '${backend}', isDataSync: true }]);
`,
);
const entry = join(outDir, 'entry.mjs');
writeFileSync(
  entry,
  `import './jasmine-setup.mjs';
import './test-env.mjs';
import '@tensorflow/tfjs-core/dist/tests';
`,
);
const bundle = join(outDir, `suite-${backend}.mjs`);
const browser = bundleOnly !== '';
await build({
  entryPoints: [entry],
  bundle: true,
  outfile: bundle,
  format: 'esm',
  platform: browser ? 'browser' : 'node',
  // tfjs-core's ESM build (dist/index.js), not its CommonJS bundle: one copy for tests and backend.
  mainFields: ['module', 'main'],
  nodePaths: [join(root, 'node_modules')],
  // eager-wasm itself stays a separate module: it finds its .wasm next to its own files.
  external: [join(root, 'dist', '*')],
  banner: browser ? {} : { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  define: browser ? { global: 'globalThis' } : {},
  plugins: [skipPatch],
  logLevel: 'warning',
  sourcemap: false,
  // tfjs-core's package.json marks most files side-effect free; its test files are not.
  ignoreAnnotations: true,
});
if (bundleOnly) process.exit(0);

// Run: a reporter that counts and groups, then jasmine's env.execute().
const results = { passed: 0, failed: 0, skipped: 0, failures: [] };
const top = (name) => name.replace(/ (eager-wasm|cpu) \{.*$/, '').replace(/ (eager-wasm|cpu) \(environment not supported\).*$/, '');
globalThis.__tfjsSuiteReporter = {
  specDone(r) {
    if (r.status === 'passed') results.passed++;
    else if (r.status === 'failed') {
      results.failed++;
      const msg = (r.failedExpectations[0]?.message ?? '').split('\n')[0].slice(0, 300);
      results.failures.push({ name: r.fullName, message: msg });
    } else results.skipped++;
  },
};
await import(pathToFileURL(bundle).href);
const env = globalThis.jasmine.getEnv();
env.addReporter(globalThis.__tfjsSuiteReporter);
if (grep) env.configure({ specFilter: (spec) => spec.getFullName().includes(grep) });
env.configure({ random: false });
const t0 = Date.now();
await env.execute();

const groups = new Map();
for (const f of results.failures) {
  const g = top(f.name.split(' ').slice(0, 3).join(' '));
  groups.set(g, (groups.get(g) ?? 0) + 1);
}
console.log(
  `tfjs-core 4.22 suite on '${backend}' (Node): ${results.passed} passed, ${results.failed} failed, ` +
    `${results.skipped} skipped, ${((Date.now() - t0) / 1000).toFixed(0)} s`,
);
if (results.failed > 0) {
  console.log('failing spec groups (count):');
  for (const [g, n] of [...groups].sort((a, b) => b[1] - a[1])) console.log(`  ${n}\t${g}`);
}
if (listFailures) for (const f of results.failures) console.log(`FAIL ${f.name}\n     ${f.message}`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 1));

let ok = true;
if (expectFile) {
  const expected = new Set(
    readFileSync(expectFile, 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean),
  );
  const failed = new Set(results.failures.map((f) => f.name));
  const unexpected = [...failed].filter((n) => !expected.has(n));
  const fixed = [...expected].filter((n) => !failed.has(n) && !grep);
  for (const n of unexpected) console.log(`UNEXPECTED FAILURE: ${n}`);
  for (const n of fixed) console.log(`LISTED BUT NOT FAILING (remove it from ${expectFile}): ${n}`);
  ok = unexpected.length === 0 && fixed.length === 0;
} else ok = results.failed === 0;
process.exit(ok ? 0 : 1);
