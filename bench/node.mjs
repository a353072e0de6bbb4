#!/usr/bin/env node
// Node 20 side of the benchmark: loads the three runtimes from dist/ and node_modules/, runs
// bench/suite.mjs, writes the results as JSON (to --out FILE, else stdout). Logs go to stderr.
// Normally started by bench/run.mjs; can be run alone: node bench/node.mjs [--quick] [--only ids]

import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runSuite } from './suite.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const argv = process.argv.slice(2);
const arg = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const log = (...a) => console.error(...a);

async function load(what, f) {
  try {
    return await f();
  } catch (e) {
    log(`[node] cannot load ${what}: ${e?.stack ?? e}`);
    return e instanceof Error ? e : new Error(String(e));
  }
}

const eager = await load('eager-wasm (dist/; run `npm run build`)', () => import(pathToFileURL(join(root, 'dist/index.js')).href));
const tfjs = await load('TF.js', async () => {
  // silence tfjs-core's "install tfjs-node" banner
  const origWarn = console.warn;
  const origLog = console.log;
  console.log = console.warn = () => {};
  try {
    const core = require('@tensorflow/tfjs-core');
    const wasm = require('@tensorflow/tfjs-backend-wasm');
    const converter = require('@tensorflow/tfjs-converter');
    return { core, wasm, converter };
  } finally {
    console.warn = origWarn;
    console.log = origLog;
  }
});
const ort = await load('onnxruntime-web', () => import('onnxruntime-web'));

const only = arg('--only')?.split(',');
const result = await runSuite({
  libs: { eager, tfjs, ort },
  io: {
    bytes: async (p) => new Uint8Array(await readFile(join(root, p))),
    tfjsWasmPrefix: join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + '/',
    // ort.node.min.mjs finds its .wasm next to itself (node_modules/onnxruntime-web/dist/)
    ortWasmPaths: undefined,
  },
  quick: argv.includes('--quick'),
  only,
  corrupt: arg('--corrupt') ?? null,
  plainSimd: argv.includes('--plain-simd'),
  log,
});
result.env = {
  name: 'node',
  version: process.version,
  v8: process.versions.v8,
  platform: `${os.platform()} ${os.arch()}`,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
};
const json = JSON.stringify(result, null, 1);
const out = arg('--out');
if (out) await writeFile(out, json);
else process.stdout.write(json + '\n');
// the runtimes keep no event-loop handles we care about; don't wait for ORT's internals
process.exit(0);
