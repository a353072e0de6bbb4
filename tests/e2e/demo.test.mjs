// End-to-end test of the demo page (www/) in headless Chromium: serves the repository on a free
// port (in-process, as scripts/serve.mjs does), runs the six lanes (five EagerContexts, one TF.js
// app on the 'eager-wasm' backend) and checks the story from the page's data-metric readouts. Needs dist/ (npm run build). Screenshots go to test-artifacts/.
//
//   node --test tests/e2e/demo.test.mjs      (npm run test:e2e)

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, readMetrics, root, startServer } from './harness.mjs';

const HISTORY = ['tf22', 'lru', 'exclude', 'anonymous', 'default'];
const LANES = [...HISTORY, 'tfjs']; // the TF.js lane runs graph models only
const LRU_CAPACITY = 200;
const artifacts = join(root, 'test-artifacts');
mkdirSync(artifacts, { recursive: true });

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser({ width: 1440, height: 900 });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Number of variables (weights) in a sample model's manifest. */
function variablesOf(model) {
  const json = JSON.parse(readFileSync(join(root, 'tests/fixtures/models', model, 'model.json'), 'utf8'));
  return json.weightsManifest.reduce((n, g) => n + g.weights.length, 0);
}

async function openPage(query, viewport, requests = null) {
  const page = await browser.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  page.on('request', (r) => requests?.push(r.url()));
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  await page.goto(`${server.url}?${query}`);
  return { page, problems };
}

/** Text of the lanes' error / note lines (empty when all is well). */
function laneNotes(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('[data-lane-card]')].map((c) => [
        c.dataset.laneCard,
        c.querySelector('.lane-note').textContent.trim(),
      ]),
    ),
  );
}

/**
 * Polls the readouts until every lane has done `minLoads` loads and has moved on since the first
 * snapshot at or past `checkpoint` loads (so a late checkpoint and the end are two points).
 * Returns every snapshot taken; a lane's readouts are all written from one sample, so its loads
 * and figures in a snapshot belong together.
 */
async function runUntil(page, minLoads, timeoutMs, checkpoint = minLoads, lanes = LANES) {
  const snapshots = [];
  const deadline = Date.now() + timeoutMs;
  const movedOn = (m, l) => {
    const c = snapshots.find((x) => (x[l]?.loads ?? -1) >= checkpoint);
    return c !== undefined && m[l].loads > c[l].loads;
  };
  for (;;) {
    const m = await readMetrics(page);
    snapshots.push(m);
    if (lanes.every((l) => (m[l]?.loads ?? 0) >= minLoads && movedOn(m, l))) return snapshots;
    if (Date.now() > deadline) {
      const notes = await laneNotes(page);
      assert.fail(
        `lanes did not reach ${minLoads} loads in ${timeoutMs / 1000}s: ` +
          `${lanes.map((l) => `${l}=${m[l]?.loads}`).join(', ')}; notes: ${JSON.stringify(notes)}`,
      );
    }
    await page.waitForTimeout(100);
  }
}

/** The last figures of each lane, in the test's output. */
function summarize(t, snapshots) {
  const last = snapshots[snapshots.length - 1];
  for (const l of LANES) {
    const m = last[l];
    if (!m?.loads) continue;
    t.diagnostic(
      `${l}: ${m.loads} loads, ${m.cacheEntries} entries, ${m.cacheBytes} cache B, ${m.heapBytes} heap B, ` +
        `${m.wasmMemoryBytes} wasm B, ${m.numTensors} tensors, ${m.numResources} resources`,
    );
  }
}

/** The first snapshot of `lane` at or past `loads` loads. */
function at(snapshots, lane, loads) {
  const s = snapshots.find((x) => (x[lane]?.loads ?? -1) >= loads);
  assert.ok(s, `no snapshot of ${lane} at ${loads} loads`);
  return s[lane];
}

/** The story, asserted from the readouts of one run. */
function assertStory(snapshots, { variables, early, mid, late, lanes = LANES }) {
  const last = snapshots[snapshots.length - 1];

  // Lane 1 (TF 2.2): entries grow with loads, by one VarHandleOp kernel per variable per load.
  const a = at(snapshots, 'tf22', mid);
  const b = last.tf22;
  assert.ok(b.loads > a.loads, 'tf22 kept loading');
  assert.ok(b.cacheEntries > a.cacheEntries, `tf22 entries grow: ${a.cacheEntries} -> ${b.cacheEntries}`);
  const perLoad = (b.cacheEntries - a.cacheEntries) / (b.loads - a.loads);
  assert.ok(
    Math.abs(perLoad - variables) <= 0.5,
    `tf22 grows by ~${variables} entries per load (one per variable), got ${perLoad.toFixed(2)}`,
  );
  assert.ok(b.heapBytes > a.heapBytes, `tf22 heap grows: ${a.heapBytes} -> ${b.heapBytes}`);
  assert.ok(b.cacheBytes > a.cacheBytes, 'tf22 cache bytes grow');

  // Lane 2 (LRU): within its capacity at every snapshot, and actually full (it is bounded, not idle).
  for (const s of snapshots) {
    if (s.lru?.cacheEntries === null || s.lru?.cacheEntries === undefined) continue;
    assert.ok(s.lru.cacheEntries <= LRU_CAPACITY, `lru entries ${s.lru.cacheEntries} <= ${LRU_CAPACITY}`);
  }
  assert.ok(last.lru.cacheEntries > LRU_CAPACITY / 2, `lru cache filled up: ${last.lru.cacheEntries}`);
  assert.ok(last.lru.evictions > 0, 'lru evicts');

  // Lanes 3-6: entries flat after the first loads.
  const tfjs = lanes.includes('tfjs') ? ['tfjs'] : [];
  for (const lane of ['exclude', 'anonymous', 'default', ...tfjs]) {
    const e = at(snapshots, lane, early);
    assert.equal(last[lane].cacheEntries, e.cacheEntries, `${lane} entries flat (${e.loads} -> ${last[lane].loads} loads)`);
    assert.equal(last[lane].cacheBytes, e.cacheBytes, `${lane} cache bytes flat`);
  }

  // Lanes 4-6: heap in use identical at two late points.
  for (const lane of ['anonymous', 'default', ...tfjs]) {
    const h = at(snapshots, lane, late);
    assert.ok(last[lane].loads > h.loads, `${lane} kept loading`);
    assert.equal(last[lane].heapBytes, h.heapBytes, `${lane} heap flat (${h.loads} -> ${last[lane].loads} loads)`);
  }

  // Every lane: dispose() releases the model's variables and tensors.
  for (const lane of lanes) {
    const e = at(snapshots, lane, early);
    assert.equal(last[lane].numResources, e.numResources, `${lane} resources back after dispose`);
    assert.equal(last[lane].numTensors, e.numTensors, `${lane} tensors back after dispose`);
  }
  // The TF.js lane: tf.memory().numTensors is the fixed input alone, and no resource is made.
  if (tfjs.length > 0) {
    assert.equal(last.tfjs.numTensors, 1, 'tfjs: tf.memory().numTensors is the one input');
    assert.equal(last.tfjs.numResources, 0, 'tfjs: TF.js holds weights as tensors, no variables');
  }
}

/** The TF.js lane's card: its predict output equals lane 5's for the same input. */
async function assertTfjsOutput(page) {
  const sel = '[data-lane-card="tfjs"] .output-check';
  await page.waitForSelector(`${sel}:not([hidden])`);
  const { match, diff, text } = await page.$eval(sel, (el) => ({ match: el.dataset.match, diff: Number(el.dataset.maxDiff), text: el.textContent }));
  assert.equal(match, 'true', text);
  assert.ok(diff <= 1e-5, `tfjs output within 1e-5 of lane 5's: ${diff}`);
  assert.match(text, /= lane 5's for the same input/);
}

test('mlp: lane 1 climbs, the LRU stays within its cap, the fixes stay flat', { timeout: 300_000 }, async (t) => {
  const { page, problems } = await openPage(`model=mlp&rate=200&lru=${LRU_CAPACITY}`);
  const snapshots = await runUntil(page, 300, 180_000, 200);
  summarize(t, snapshots);
  const notes = await laneNotes(page);
  await page.screenshot({ path: join(artifacts, 'demo.png'), fullPage: true });
  for (const l of LANES) assert.equal(notes[l], '', `lane ${l} reports no error and predicts: ${notes[l]}`);
  assertStory(snapshots, { variables: variablesOf('mlp'), early: 50, mid: 100, late: 200 });
  await assertTfjsOutput(page);
  assert.match(await page.textContent('[data-lane-card="tfjs"] .settings'), /resourceNames: 'anonymous', cache unbounded/);
  // The churn warning names the culprit in lane 1, and only there among the fixes.
  const warnings = await page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('[data-lane-card]')].map((c) => [c.dataset.laneCard, c.querySelector('.warnings').textContent]),
    ),
  );
  assert.match(warnings.tf22, /VarHandleOp/, 'lane 1 shows a VarHandleOp churn warning');
  assert.match(warnings.tf22, /New on almost every call: shared_name \(/, 'the warning names shared_name');
  for (const lane of ['anonymous', 'default', 'tfjs']) assert.equal(warnings[lane], '', `no churn warning in ${lane}`);
  await assertInspector(page);
  assert.deepEqual(problems, []);
  await page.close();
});

/** Rows of every lane's cache inspector: [{ op, varying }] in the order shown. */
function inspectorRows(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('[data-lane-card]')].map((c) => [
        c.dataset.laneCard,
        [...c.querySelectorAll('.inspector li[data-op]')].map((li) => ({ op: li.dataset.op, varying: li.dataset.varying })),
      ]),
    ),
  );
}

/** The inspectors: TF 2.2 shows VarHandleOp with shared_name new on every call; the fixes, nothing. */
async function assertInspector(page) {
  const rows = await inspectorRows(page);
  const vh = rows.tf22.find((r) => r.op === 'VarHandleOp');
  assert.ok(vh, `tf22 inspector lists VarHandleOp: ${JSON.stringify(rows.tf22)}`);
  assert.equal(vh.varying, 'shared_name', 'tf22: shared_name varies on almost every call, nothing else');
  assert.equal(rows.tf22[0].op, 'VarHandleOp', 'sorted by entries, the leaking op comes first');
  assert.equal(rows.exclude.find((r) => r.op === 'VarHandleOp')?.varying, 'shared_name', 'excluded, but still seen varying');
  for (const lane of ['anonymous', 'default']) {
    assert.ok(rows[lane].some((r) => r.op === 'VarHandleOp'), `${lane} inspector lists VarHandleOp`);
    for (const r of rows[lane]) assert.equal(r.varying, '', `${lane}: ${r.op} has no varying attr`);
  }
  // A click shows the key composition; sorting by bytes keeps the leaking op first.
  const card = '[data-lane-card="tf22"] .inspector';
  await page.click(`${card} button[data-op="VarHandleOp"]`);
  await page.waitForSelector(`${card} .key-composition[data-op="VarHandleOp"]:not([hidden])`);
  const comp = await page.evaluate(
    (sel) =>
      Object.fromEntries(
        [...document.querySelectorAll(`${sel} .key-composition li[data-attr]`)].map((li) => [li.dataset.attr, li.dataset.varies]),
      ),
    card,
  );
  assert.equal(comp.shared_name, 'per-call');
  for (const a of ['container', 'dtype', 'allowed_devices']) assert.equal(comp[a], 'constant', `${a} constant`);
  assert.match(await page.textContent(`${card} .key-composition`), /shared_name: ~?[\d,]+ values, new on almost every call; e\.g\. "/);
  await page.selectOption(`${card} .inspector-sort select`, 'bytes');
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.dataset.key?.startsWith('["bytes"'),
    card,
  );
  assert.equal((await inspectorRows(page)).tf22[0].op, 'VarHandleOp');
  await page.locator('[data-lane-card="tf22"]').screenshot({ path: join(artifacts, 'demo-inspector.png') });
  // The list re-renders with every batch of loads; no click is lost to that: each one toggles.
  const shown = () => page.evaluate((sel) => !document.querySelector(`${sel} .key-composition`).hidden, card);
  for (let i = 0; i < 6; i++) {
    const before = await shown();
    await page.click(`${card} button[data-op="VarHandleOp"]`);
    assert.equal(await shown(), !before, `click ${i + 1} toggles the key composition`);
  }
}

test('phone width (390x844): the page renders without horizontal overflow', { timeout: 120_000 }, async () => {
  const { page, problems } = await openPage('model=mlp&rate=max', { width: 390, height: 844 });
  await runUntil(page, 20, 60_000);
  const { scrollWidth, clientWidth, chartWidths } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    chartWidths: [...document.querySelectorAll('.chart canvas')].map((c) => c.getBoundingClientRect().right),
  }));
  await page.screenshot({ path: join(artifacts, 'demo-phone.png'), fullPage: true });
  assert.ok(scrollWidth <= clientWidth, `no horizontal overflow: scrollWidth ${scrollWidth} > ${clientWidth}`);
  assert.equal(chartWidths.length, 6, 'six charts');
  for (const r of chartWidths) assert.ok(r <= clientWidth, `chart fits the screen (right edge ${r})`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the TF.js lane: its worker and TF.js download only when it is on', { timeout: 180_000 }, async () => {
  const requests = [];
  const { page, problems } = await openPage('model=mlp&rate=200&lanes=tf22,default', null, requests);
  await runUntil(page, 30, 60_000, 30, ['tf22', 'default']);
  const bundle = (u) => u.endsWith('/gen/tfjs-lane.js');
  assert.ok(!requests.some(bundle), 'TF.js is not fetched while its lane is off');
  assert.equal((await page.textContent('[data-lane-card="tfjs"] .lane-status')).trim(), 'off');
  await page.check('[data-lane-toggle="tfjs"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-lane="tfjs"][data-metric="loads"]').textContent) >= 30);
  assert.ok(requests.some(bundle), 'turning the lane on fetches TF.js');
  await assertTfjsOutput(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test('mobilenet: same story on a CNN', { timeout: 300_000 }, async (t) => {
  const { page, problems } = await openPage(`model=mobilenet&rate=max&lru=${LRU_CAPACITY}`);
  const snapshots = await runUntil(page, 50, 180_000, 30);
  summarize(t, snapshots);
  const notes = await laneNotes(page);
  await page.screenshot({ path: join(artifacts, 'demo-mobilenet.png'), fullPage: true });
  for (const l of LANES) assert.equal(notes[l], '', `lane ${l} reports no error and predicts: ${notes[l]}`);
  // The profile table: the model's top ops by time, each row op / runs / ms / share.
  const rows = await page.$$eval('#profile:not([hidden]) tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.ok(rows.length >= 3 && rows.every((r) => r.length === 4 && r[0] !== '' && r[3].endsWith('%')), JSON.stringify(rows));
  assertStory(snapshots, { variables: variablesOf('mobilenet'), early: 10, mid: 15, late: 30 });
  await assertTfjsOutput(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test('keras layers models: the Teachable-Machine-style sample tells the same story; dropped layers files load', { timeout: 300_000 }, async (t) => {
  const layersVariables = (name) =>
    JSON.parse(readFileSync(join(root, 'tests/fixtures/layers', name, 'model.json'), 'utf8')).weightsManifest.reduce(
      (n, g) => n + g.weights.length,
      0,
    );
  const { page, problems } = await openPage(`model=keras_teachable&rate=max&lru=${LRU_CAPACITY}`);
  const snapshots = await runUntil(page, 50, 180_000, 30, HISTORY);
  summarize(t, snapshots);
  let notes = await laneNotes(page);
  await page.screenshot({ path: join(artifacts, 'demo-keras-teachable.png'), fullPage: true });
  for (const l of HISTORY) assert.equal(notes[l], '', `lane ${l} reports no error and predicts: ${notes[l]}`);
  assertStory(snapshots, { variables: layersVariables('teachable'), early: 10, mid: 15, late: 30, lanes: HISTORY });
  // The TF.js lane runs graph models only, and says so.
  assert.equal((await page.textContent('[data-lane-card="tfjs"] .lane-status')).trim(), 'graph models only');
  assert.match(notes.tfjs, /tf\.loadGraphModel runs graph models; this is a Keras layers model/);

  // A layers-format model dropped as files (model.json + shard, plus an unrelated .json).
  const dir = join(root, 'tests/fixtures/layers/lstm_text');
  await page.click('.own-model summary');
  await page.setInputFiles('#files', [join(dir, 'model.json'), join(dir, 'group1-shard1of1.bin'), join(dir, 'reference.json')]);
  const n = layersVariables('lstm_text');
  await page.waitForFunction((v) => document.querySelector('#status').textContent.includes(`${v} variables`), n);
  const snaps = await runUntil(page, 15, 120_000, 15, HISTORY);
  const last = snaps[snaps.length - 1];
  assert.ok(last.tf22.cacheEntries >= 15 * n, `dropped layers model: lane 1 grows by ${n} per load (${last.tf22.cacheEntries})`);
  notes = await laneNotes(page);
  for (const l of HISTORY) assert.equal(notes[l], '', `lane ${l} reports no error and predicts: ${notes[l]}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('controls: own model (files, URL), LRU capacity, pause/resume, lane toggle, log scale', { timeout: 300_000 }, async () => {
  const { page, problems } = await openPage('model=mlp&rate=200&lru=200');
  await runUntil(page, 20, 60_000);
  const loads = async (lane) => (await readMetrics(page))[lane].loads;

  // LRU capacity below what one load needs: it stays within the new bound and thrashes.
  await page.fill('#lru-capacity', '4');
  await page.press('#lru-capacity', 'Enter');
  await page.waitForFunction(() => Number(document.querySelector('[data-lane="lru"][data-metric="cacheEntries"]').textContent) <= 4);
  const start = await loads('lru');
  await page.waitForFunction((n) => Number(document.querySelector('[data-lane="lru"][data-metric="loads"]').textContent) >= n + 20, start);
  const lru = (await readMetrics(page)).lru;
  assert.ok(lru.cacheEntries <= 4, `lru entries within the new capacity: ${lru.cacheEntries}`);
  assert.match(await page.textContent('[data-lane-card="lru"] .settings'), /maxEntries: 4/);

  // Pause stops every lane; resume starts them again.
  await page.click('#toggle');
  await page.waitForTimeout(1000);
  const paused = await readMetrics(page);
  await page.waitForTimeout(700);
  const still = await readMetrics(page);
  for (const l of LANES) assert.equal(still[l].loads, paused[l].loads, `${l} paused`);
  assert.equal((await page.textContent('#toggle')).trim(), 'Resume');
  await page.click('#toggle');
  await page.waitForFunction((n) => Number(document.querySelector('[data-lane="tf22"][data-metric="loads"]').textContent) > n, still.tf22.loads);

  // Unchecking a lane pauses it (and hides its series); the others go on.
  await page.uncheck('[data-lane-toggle="exclude"]');
  await page.waitForTimeout(1000);
  const off = await readMetrics(page);
  await page.waitForTimeout(700);
  const off2 = await readMetrics(page);
  assert.equal(off2.exclude.loads, off.exclude.loads, 'an unchecked lane stops');
  assert.ok(off2.tf22.loads > off.tf22.loads, 'the other lanes go on');
  assert.equal((await page.textContent('[data-lane-card="exclude"] .lane-status')).trim(), 'off');
  await page.check('[data-lane-toggle="exclude"]');

  // Log scale rebuilds the charts.
  await page.check('#log-scale');
  assert.equal(await page.locator('.chart canvas').count(), 6);

  // Own model from the file picker: mobilenet's model.json + shard, matched by file name.
  const dir = join(root, 'tests/fixtures/models/mobilenet');
  await page.click('.own-model summary');
  await page.setInputFiles('#files', [join(dir, 'model.json'), join(dir, 'group1-shard1of1.bin'), join(dir, 'reference.json')]);
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('31 variables'));
  assert.match(await page.inputValue('#model'), /custom/);
  let snaps = await runUntil(page, 15, 120_000);
  let last = snaps[snaps.length - 1];
  assert.ok(last.tf22.cacheEntries >= 15 * 31, `own model: lane 1 grows by 31 per load (${last.tf22.cacheEntries})`);
  assert.ok(last.lru.cacheEntries <= 4, 'the LRU capacity set before is kept');

  // Own model by URL (the served cnn sample).
  await page.fill('#url', new URL('/tests/fixtures/models/cnn/model.json', server.origin).href);
  await page.click('#url-form button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('7 variables'));
  snaps = await runUntil(page, 15, 120_000);
  last = snaps[snaps.length - 1];
  assert.ok(last.tf22.cacheEntries >= 15 * 7, `URL model: lane 1 grows (${last.tf22.cacheEntries})`);
  assert.ok(last.anonymous.cacheEntries < 40, `URL model: lane 4 flat (${last.anonymous.cacheEntries})`);
  assert.ok(last.tfjs.cacheEntries < 40, `URL model: the TF.js lane flat (${last.tfjs.cacheEntries})`);
  await assertTfjsOutput(page);
  const notes = await laneNotes(page);
  for (const l of LANES) assert.equal(notes[l], '', `lane ${l}: ${notes[l]}`);

  // A file selection without its shard says what is missing.
  await page.setInputFiles('#files', [join(dir, 'model.json')]);
  await page.waitForFunction(() => document.querySelector('#status').dataset.kind === 'error');
  assert.match(await page.textContent('#status'), /missing shard file\(s\): group1-shard1of1\.bin/);

  // Reset starts every lane from zero.
  await page.click('#reset');
  await page.waitForFunction(() => Number(document.querySelector('[data-lane="tf22"][data-metric="loads"]').textContent || '0') < 15);
  assert.deepEqual(problems, []);
  await page.close();
});

test('production build (npm run build:site) serves from a plain static root', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'eager-wasm-site-'));
  let site;
  try {
    execFileSync(process.execPath, [join(root, 'scripts/build-site.mjs'), '--out', dir], { stdio: 'pipe' });
    for (const f of ['index.html', 'main.js', 'lane-worker.js', 'config.js', 'gen/tfjs-lane.js', 'dist/eager_wasm_bg.wasm', 'dist/eager_wasm_relaxed_bg.wasm', 'dist/eager_wasm_layers_bg.wasm', 'dist/eager_wasm_layers_relaxed_bg.wasm', 'vendor/uplot/uPlot.esm.js', 'models/mlp/model.json', 'models/mobilenet/group1-shard1of1.bin']) {
      assert.ok(existsSync(join(dir, f)), `site has ${f}`);
    }
    site = await startServer(['--root', dir]);
    const page = await browser.context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
    page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
    await page.goto(`${site.url}?model=mobilenet&rate=max`);
    const snaps = await runUntil(page, 20, 120_000);
    const last = snaps[snaps.length - 1];
    assert.ok(last.tf22.cacheEntries > last.anonymous.cacheEntries, 'the site build runs the lanes');
    assert.ok(last.tfjs.cacheEntries < last.tf22.cacheEntries, 'and the TF.js lane, flat');
    await assertTfjsOutput(page);
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true, 'cross-origin isolated (COOP/COEP)');
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await site?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
