#!/usr/bin/env node
// Serves the demo page with the static server of scripts/lib/server.mjs: the repository root (so
// /www/, /dist/, /node_modules/uplot/ and /tests/fixtures/models/ are all reachable) on 127.0.0.1.
//
//   node scripts/serve.mjs            port from $PORT, else 8080; a free port if that one is taken
//   PORT=0 node scripts/serve.mjs     any free port
//   node scripts/serve.mjs --root site   serve another folder (e.g. the production build)
//
// Every response carries Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy:
// require-corp, so the page is cross-origin isolated and performance.measureUserAgentSpecificMemory()
// is available. Serving the repository, it first bundles the TF.js lane's module into www/gen/
// (scripts/lib/tfjs-lane.mjs). The first line printed is the page's URL.

import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './lib/server.mjs';
import { bundleTfjsLaneForDev } from './lib/tfjs-lane.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const rootArg = argv.indexOf('--root');
const root = rootArg >= 0 ? resolve(argv[rootArg + 1]) : repoRoot;
// The page lives in www/ of the repository; a production build (site/) has it at its root.
const landing = rootArg >= 0 ? '/' : '/www/';
const options = { redirects: landing === '/' ? {} : { '/': landing } };
if (rootArg < 0) await bundleTfjsLaneForDev();

const wanted = process.env.PORT === undefined || process.env.PORT === '' ? 8080 : Number(process.env.PORT);
let server;
try {
  server = await startServer(root, { ...options, port: wanted });
} catch (e) {
  if (e.code !== 'EADDRINUSE' && e.code !== 'EACCES') throw e;
  server = await startServer(root, { ...options, port: 0 });
  console.error(`port ${wanted} is taken; using ${server.port} instead`);
}
console.log(`eager-wasm demo: ${server.origin}${landing}`);
if (rootArg < 0) console.log(`serving ${root} (Ctrl-C to stop)`);

const stop = () => server.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
