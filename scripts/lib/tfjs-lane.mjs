// The demo's TF.js lane imports `@tensorflow/tfjs-core`, `@tensorflow/tfjs-converter` and
// `eager-wasm/tfjs` as an app does (www/tfjs-lane.js). A worker cannot resolve bare imports, so
// that module is bundled (esbuild) to `<page>/gen/tfjs-lane.js`: tfjs-core, the converter and the
// backend's three tfjs*.js modules go in; the rest of the package stays external, imported from the
// page's dist/ by relative URL, so the lane shares the other lanes' wasm loading (init() finds the
// .wasm next to dist/runtime.js). Only that lane's worker downloads the bundle.

import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The backend's own modules: bundled, since they import tfjs-core (one copy with the converter's). */
const BUNDLED = new Set(['tfjs.js', 'tfjs-backend.js', 'tfjs-kernels.js']);

/**
 * Writes `outFile` for a page whose package is `distDir` (paths on disk, in the served layout).
 * Resolves the bundle's size in bytes.
 */
export async function bundleTfjsLane(outFile, distDir = join(root, 'dist')) {
  const dist = resolve(distDir);
  const fromBundle = relative(dirname(resolve(outFile)), dist).split('\\').join('/');
  const external = (file) => ({ path: `${fromBundle}/${file}`, external: true });
  const plugin = {
    name: 'eager-wasm-dist',
    setup(b) {
      b.onResolve({ filter: /^eager-wasm(\/tfjs)?$/ }, (a) =>
        a.path === 'eager-wasm/tfjs' ? { path: join(root, 'dist/tfjs.js') } : external('index.js'),
      );
      // Relative imports inside dist/: the backend's modules are bundled, the rest stay external.
      b.onResolve({ filter: /^\.\// }, (a) => {
        if (resolve(a.resolveDir) !== join(root, 'dist')) return undefined;
        const file = a.path.slice(2);
        return BUNDLED.has(file) ? { path: join(root, 'dist', file) } : external(file);
      });
    },
  };
  const r = await build({
    entryPoints: [join(root, 'www/tfjs-lane.js')],
    outfile: outFile,
    bundle: true,
    format: 'esm',
    minify: true,
    legalComments: 'linked', // tfjs' Apache-2.0 notices, kept beside the bundle
    target: 'es2020',
    plugins: [plugin],
    logLevel: 'silent',
    metafile: true,
  });
  return Object.values(r.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
}

/**
 * The dev server's bundle (www/gen/, for the page at /www/ with the package at /dist/). Returns
 * false with a warning if it cannot be built: the other lanes do not need it.
 */
export async function bundleTfjsLaneForDev() {
  if (!existsSync(join(root, 'dist/tfjs.js'))) return false;
  try {
    await bundleTfjsLane(join(root, 'www/gen/tfjs-lane.js'));
    return true;
  } catch (e) {
    console.error(`the demo's TF.js lane is unavailable: bundling www/tfjs-lane.js failed: ${e.message}`);
    return false;
  }
}
