// What tests/js/threads.test.mjs compares between the threaded and the single-threaded build: the
// model fixtures' outputs and ops large enough to be cut into tasks, as the bytes of each output.
// Run directly (`node threads-cases.mjs --threads N`), it loads the build for N threads and prints
// the results as JSON, for a test whose own process holds the other build.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bytes, opCases } from './thread-op-cases.mjs';

const root = new URL('../..', import.meta.url).pathname;
const fixtures = join(root, 'tests/fixtures/models');

/** Model fixtures fed with plain float/int inputs (the others have suites of their own). */
function modelNames() {
  return readdirSync(fixtures)
    .filter((name) => {
      try {
        const ref = JSON.parse(readFileSync(join(fixtures, name, 'reference.json'), 'utf8'));
        return Object.values(ref.inputs).every((v) => v.dtype === 'float32' || v.dtype === 'int32');
      } catch {
        return false;
      }
    })
    .sort();
}

/** `{ name: [base64 of each output] }` for every case. */
export async function threadCases(api, ctx = new api.EagerContext(), { only } = {}) {
  const out = {};
  if (only !== 'models') Object.assign(out, opCases(ctx));
  for (const name of modelNames()) {
    const dir = join(fixtures, name);
    const modelJson = readFileSync(join(dir, 'model.json'), 'utf8');
    const manifest = JSON.parse(modelJson).weightsManifest ?? [];
    const weights = manifest.flatMap((g) => g.paths).map((p) => readFileSync(join(dir, p)));
    const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
    const feeds = {};
    for (const [k, v] of Object.entries(ref.inputs)) {
      feeds[k] = ctx.tensor(v.dtype === 'int32' ? new Int32Array(v.data) : new Float32Array(v.data), v.shape, v.dtype);
    }
    const model = await ctx.loadGraphModel({ modelJson, weights });
    const names = model.outputs.map((o) => o.name);
    const ys = await model.executeAsync(feeds, names);
    out[`model ${name}`] = ys.map(bytes);
    for (const t of [...Object.values(feeds), ...ys]) t.dispose();
    model.dispose();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const api = await import(pathToFileURL(join(root, 'dist/index.js')).href);
  const i = process.argv.indexOf('--threads');
  await api.init({ threads: Number(process.argv[i + 1]) });
  process.stdout.write(JSON.stringify(await threadCases(api)));
}
