// Published TF.js graph models' graphs that TF.js runs (tests/js/published-gaps-cases.mjs): in
// Node, and in headless Chromium with the same cases, models loaded by URL from a static server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CHROMIUM, launchChromium, runPage } from '../../scripts/lib/browser.mjs';
import { startServer } from '../../scripts/lib/server.mjs';
import { checkPublishedGaps } from './published-gaps-cases.mjs';
import { api, fixtures, root } from './helpers.mjs';

function nodeFiles(name) {
  const dir = join(fixtures, name);
  const modelJsonText = readFileSync(join(dir, 'model.json'), 'utf8');
  const shards = JSON.parse(modelJsonText)
    .weightsManifest.flatMap((g) => g.paths)
    .map((p) => new Uint8Array(readFileSync(join(dir, p))));
  const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
  return { url: join(dir, 'model.json'), modelJsonText, shards, reference };
}

function report(results) {
  const failures = results.filter((r) => !r.ok).map((r) => `${r.name}:\n${r.error}`);
  assert.deepEqual(failures, []);
  assert.ok(results.length >= 4);
}

test('Node: float64 graphs, uint8 inputs fed int32, int64 indices and weights, every way of loading', async () => {
  report(await checkPublishedGaps(api, async (name) => nodeFiles(name)));
});

const page = `<!doctype html><meta charset="utf-8"><title>published gaps</title>
<script type="module">
import * as api from '/dist/index.js';
import { checkPublishedGaps } from '/tests/js/published-gaps-cases.mjs';
const files = async (name) => {
  const base = '/tests/fixtures/models/' + name + '/';
  const modelJsonText = await (await fetch(base + 'model.json')).text();
  const paths = JSON.parse(modelJsonText).weightsManifest.flatMap((g) => g.paths);
  const shards = await Promise.all(paths.map(async (p) => new Uint8Array(await (await fetch(base + p)).arrayBuffer())));
  const reference = await (await fetch(base + 'reference.json')).json();
  return { url: base + 'model.json', modelJsonText, shards, reference };
};
try {
  await api.init();
  window.__result = await checkPublishedGaps(api, files);
} catch (e) {
  window.__error = (e && e.stack) || String(e);
}
</script>`;

test('Chromium: the same cases, models fetched by URL', { skip: CHROMIUM ? false : 'Chromium not installed' }, async () => {
  const server = await startServer(root, { pages: { '/published-gaps.html': page } });
  const browser = await launchChromium();
  try {
    report(await runPage(browser.context, `${server.origin}/published-gaps.html`, { prefix: '[chromium]', timeoutMs: 120000 }));
  } finally {
    await browser.close();
    await server.close();
  }
});
