#!/usr/bin/env node
// Production build of the demo page for any static host, into site/:
//   site/index.html, main.js, lane-worker.js, lanes.js, plots.js, style.css   (from www/)
//   site/config.js                                    (paths rewritten for this layout)
//   site/gen/tfjs-lane.js  the TF.js lane's module bundled with tfjs-core and the converter
//                    (scripts/lib/tfjs-lane.mjs); only that lane downloads it
//   site/dist/       the package (index.js and its modules, the glue, every build's .wasm parts)
//   site/vendor/uplot/  uPlot's ESM build and CSS
//   site/models/<name>/ the sample models (model.json + shards)
//   site/_headers    COOP/COEP for hosts that read it (Netlify, Cloudflare Pages), so that the page
//                    is cross-origin isolated there: graph-model lanes run the threaded build and
//                    performance.measureUserAgentSpecificMemory() works; the page works without.
// Needs dist/ (npm run build). Preview: node scripts/serve.mjs --root site
// --out DIR writes elsewhere than site/.

import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleTfjsLane } from './lib/tfjs-lane.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const www = join(root, 'www');
const outArg = process.argv.indexOf('--out');
const out = outArg >= 0 ? resolve(process.argv[outArg + 1]) : join(root, 'site');
const fail = (msg) => {
  console.error(`build-site: ${msg}`);
  process.exit(1);
};

if (!existsSync(join(root, 'dist/eager_wasm_bg.wasm'))) fail('dist/ is missing: run `npm run build` first');
const uplotDir = join(root, 'node_modules/uplot/dist');
if (!existsSync(uplotDir)) fail('node_modules/uplot is missing: run `npm install`');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The page, with its three outside paths rewritten.
const rewrite = (text) =>
  text.replaceAll('../node_modules/uplot/dist/', './vendor/uplot/');
for (const f of readdirSync(www)) {
  const src = join(www, f);
  // tfjs-lane.js is bundled below; gen/ is the dev server's bundle.
  if (f === 'config.js' || f === 'tfjs-lane.js' || f === 'gen') continue;
  if (/\.(html|js|css)$/.test(f)) writeFileSync(join(out, f), rewrite(readFileSync(src, 'utf8')));
  else cpSync(src, join(out, f), { recursive: true });
}
writeFileSync(
  join(out, 'config.js'),
  `// Paths of the production build (scripts/build-site.mjs).
export const PKG_URL = new URL('./dist/index.js', import.meta.url).href;
export const MODELS_URL = new URL('./models/', import.meta.url).href;
export const TFJS_URL = new URL('./gen/tfjs-lane.js', import.meta.url).href;
`,
);
for (const f of ['main.js', 'plots.js', 'index.html']) {
  if (readFileSync(join(out, f), 'utf8').includes('node_modules')) fail(`${f} still points into node_modules`);
}

mkdirSync(join(out, 'dist'));
// The wrapper's modules (every .js of dist/, the entry index.js and the glue) and the two builds.
for (const f of readdirSync(join(root, 'dist'))) {
  if (f.endsWith('.js') || f.endsWith('.wasm')) copyFileSync(join(root, 'dist', f), join(out, 'dist', f));
}

await bundleTfjsLane(join(out, 'gen/tfjs-lane.js'), join(out, 'dist'));

mkdirSync(join(out, 'vendor/uplot'), { recursive: true });
for (const f of ['uPlot.esm.js', 'uPlot.min.css']) copyFileSync(join(uplotDir, f), join(out, 'vendor/uplot', f));
const license = join(root, 'node_modules/uplot/LICENSE');
if (existsSync(license)) copyFileSync(license, join(out, 'vendor/uplot/LICENSE'));

// Sample models: model.json + the shards its manifest names (not the test references).
const models = join(root, 'tests/fixtures/models');
let nModels = 0;
for (const name of readdirSync(models)) {
  const json = join(models, name, 'model.json');
  if (!existsSync(json)) continue;
  const manifest = JSON.parse(readFileSync(json, 'utf8')).weightsManifest ?? [];
  mkdirSync(join(out, 'models', name), { recursive: true });
  copyFileSync(json, join(out, 'models', name, 'model.json'));
  for (const p of manifest.flatMap((g) => g.paths)) copyFileSync(join(models, name, p), join(out, 'models', name, p));
  nModels++;
}

// Keras samples in the layers format (www/main.js refers to them as ../layers/<name> of models/).
const layersModels = join(root, 'tests/fixtures/layers');
for (const name of ['teachable', 'lstm_text']) {
  const json = join(layersModels, name, 'model.json');
  const manifest = JSON.parse(readFileSync(json, 'utf8')).weightsManifest ?? [];
  mkdirSync(join(out, 'layers', name), { recursive: true });
  copyFileSync(json, join(out, 'layers', name, 'model.json'));
  for (const p of manifest.flatMap((g) => g.paths)) copyFileSync(join(layersModels, name, p), join(out, 'layers', name, p));
  nModels++;
}

writeFileSync(
  join(out, '_headers'),
  `/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp\n`,
);

let bytes = 0;
const walk = (d) => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(d, e.name));
    else bytes += readFileSync(join(d, e.name)).length;
  }
};
walk(out);
console.log(`${relative(root, out) || out}/: the demo page, the package, uPlot, the TF.js lane's bundle and ${nModels} sample models (${(bytes / 2 ** 20).toFixed(1)} MiB)`);
console.log(`preview: node scripts/serve.mjs --root ${relative(process.cwd(), out) || '.'}`);
