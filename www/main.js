// The demo page: five lanes (one Web Worker + wasm instance + EagerContext each) and a sixth
// running TF.js's API on the 'eager-wasm' backend load the same model again and again; the page
// plots their figures live and shows them as text.
//
// URL parameters (all optional): model=<sample name>, rate=max|<loads/s>, lanes=tf22,lru,...,
// lru=<capacity>, maxLoads=<n>, autostart=0|1, scale=log.

import { MODELS_URL, PKG_URL, TFJS_URL } from './config.js';
import { DEFAULT_LRU_CAPACITY, LANES, SAMPLE_FIELDS } from './lanes.js';
import { createCharts, formatBytes, formatCount } from './plots.js';
import { initInspector, inspectorHtml, renderInspector } from './inspector.js';

const SAMPLES = [
  { id: 'mlp', label: 'MLP 784-128-64-10 (6 variables)' },
  { id: 'mobilenet', label: 'MobileNet-style CNN (31 variables)' },
  { id: 'cnn', label: 'Small CNN (7 variables)' },
  { id: 'mlp_float16', label: 'MLP, float16-quantized weights' },
  { id: 'mlp_uint8', label: 'MLP, uint8-quantized weights' },
  { id: 'lstm', label: 'LSTM (30 variables)' },
  { id: 'zoo_gru', label: 'GRU text classifier: two while loops (control flow)' },
  { id: 'activations', label: 'Activations MLP (17 variables)' },
  { id: 'conv_variants', label: 'Convolution variants (24 variables)' },
  { id: 'layer_norm_keras', label: 'Layer norm (18 variables)' },
  { id: 'tensor_ops', label: 'Tensor ops (59 variables)' },
  { id: 'tensor_ops2', label: 'Tensor ops 2 (38 variables)' },
  // Keras models in the TF.js layers format (tests/fixtures/layers), loaded with loadLayersModel.
  { id: 'keras_teachable', dir: '../layers/teachable', label: 'Keras: Teachable-Machine-style classifier (29 variables)' },
  { id: 'keras_lstm_text', dir: '../layers/lstm_text', label: 'Keras: LSTM text classifier (6 variables)' },
];
const MAX_POINTS = 1500; // per lane and chart; past it, the x grid is thinned by 2
const REDRAW_MS = 100; // at most ~10 redraws a second

const params = new URLSearchParams(location.search);
const $ = (sel) => document.querySelector(sel);

const state = {
  modelId: SAMPLES.some((s) => s.id === params.get('model')) ? params.get('model') : 'mlp',
  model: null, // { modelJson, weights, summary }
  custom: null, // a model from files or a URL: { label, model }
  rate: params.get('rate') ?? '200',
  log: params.get('scale') === 'log',
  lruCapacity: positiveInt(params.get('lru')) ?? DEFAULT_LRU_CAPACITY,
  maxLoads: positiveInt(params.get('maxLoads')) ?? 10000,
  running: params.get('autostart') !== '0',
  enabled: new Set(params.has('lanes') ? params.get('lanes').split(',') : LANES.map((l) => l.id)),
  stride: 1, // x grid: one point every `stride` loads
  generation: 0, // bumps on reset, so messages from old workers are ignored
};

/** Per-lane runtime state. */
const lanes = Object.fromEntries(
  LANES.map((l) => [
    l.id,
    { def: l, worker: null, status: 'idle', cols: null, latest: null, stats: null, loadsPerSec: 0, note: null, error: null, output: null },
  ]),
);

function positiveInt(s) {
  const n = Number(s);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * Binds a number input to `state[key]`: a positive integer is stored and passed to `apply`;
 * anything else puts the stored value back.
 */
function positiveIntInput(input, key, apply) {
  input.value = String(state[key]);
  input.addEventListener('change', () => {
    const n = positiveInt(input.value);
    if (n === null) {
      input.value = String(state[key]);
      return;
    }
    state[key] = n;
    apply(n);
  });
}

function rateValue() {
  return state.rate === 'max' ? Infinity : Number(state.rate);
}

function setStatus(text, kind = '') {
  const el = $('#status');
  el.textContent = text;
  el.dataset.kind = kind;
}

// ---- models --------------------------------------------------------------------------------------

function summarize(json, weights, name) {
  const manifest = json.weightsManifest ?? [];
  const variables = manifest.reduce((n, g) => n + (g.weights?.length ?? 0), 0);
  const bytes = Object.values(weights).reduce((n, b) => n + b.byteLength, 0);
  const layers = json.format === 'layers-model';
  const nodes = layers
    ? (json.modelTopology?.model_config?.config?.layers?.length ?? json.modelTopology?.config?.layers?.length ?? 0)
    : (json.modelTopology?.node?.length ?? 0);
  return { name, variables, bytes, nodes, layers };
}

function parseModelJson(text, where) {
  let json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not JSON: ${e.message}`);
  }
  if (json === null || typeof json !== 'object' || !json.modelTopology) {
    throw new Error(`${where} is not a TF.js graph or layers model (no modelTopology)`);
  }
  return json;
}

async function fetchModel(url, name) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`fetching ${url} failed: HTTP ${res.status}`);
  const text = await res.text();
  const json = parseModelJson(text, url);
  const paths = (json.weightsManifest ?? []).flatMap((g) => g.paths ?? []);
  const weights = {};
  await Promise.all(
    paths.map(async (p) => {
      const r = await fetch(new URL(p, url));
      if (!r.ok) throw new Error(`fetching shard ${p} failed: HTTP ${r.status}`);
      weights[p] = await r.arrayBuffer();
    }),
  );
  return { modelJson: text, weights, summary: summarize(json, weights, name) };
}

async function modelFromFiles(fileList) {
  const files = [...fileList];
  const jsons = files.filter((f) => f.name.toLowerCase().endsWith('.json'));
  if (jsons.length === 0) throw new Error('select the model.json together with its shard files');
  let text = null;
  let json = null;
  let jsonFile = null;
  for (const f of jsons) {
    const t = await f.text();
    try {
      json = parseModelJson(t, f.name);
      text = t;
      jsonFile = f;
      break;
    } catch {
      // another .json (e.g. a reference file): keep looking
    }
  }
  if (json === null) throw new Error('none of the selected .json files is a TF.js model');
  const byName = new Map(files.map((f) => [f.name, f]));
  const weights = {};
  const missing = [];
  for (const p of (json.weightsManifest ?? []).flatMap((g) => g.paths ?? [])) {
    const f = byName.get(p.split('/').pop());
    if (f === undefined) missing.push(p);
    else weights[p] = await f.arrayBuffer();
  }
  if (missing.length > 0) {
    throw new Error(`missing shard file(s): ${missing.join(', ')} (select them together with ${jsonFile.name})`);
  }
  return { modelJson: text, weights, summary: summarize(json, weights, jsonFile.name) };
}

// ---- lanes ---------------------------------------------------------------------------------------

function laneOptions() {
  return { lruCapacity: state.lruCapacity };
}

function emptyCols() {
  return Object.fromEntries(SAMPLE_FIELDS.map((f) => [f, []]));
}

function startLane(id) {
  const lane = lanes[id];
  const gen = state.generation;
  lane.worker?.terminate();
  lane.cols = emptyCols();
  lane.latest = null;
  lane.stats = null;
  lane.loadsPerSec = 0;
  lane.note = null;
  lane.error = null;
  lane.output = null;
  if (lane.def.tfjs && state.model.summary.layers) {
    lane.status = 'na';
    lane.note = 'tf.loadGraphModel runs graph models; this is a Keras layers model (tf.loadLayersModel is not part of this lane).';
    return;
  }
  lane.status = 'starting';
  const w = new Worker(new URL('./lane-worker.js', import.meta.url), { type: 'module', name: `lane ${id}` });
  lane.worker = w;
  w.onmessage = ({ data }) => {
    if (gen !== state.generation || lane.worker !== w) return;
    onLaneMessage(lane, data);
  };
  w.onerror = (e) => {
    if (gen !== state.generation) return;
    lane.status = 'error';
    lane.error = e.message || 'the worker failed to start';
    scheduleRender();
  };
  w.postMessage({
    type: 'start',
    pkgUrl: PKG_URL,
    tfjsUrl: lane.def.tfjs ? TFJS_URL : undefined,
    laneId: id,
    options: lane.def.settings(laneOptions()),
    model: { modelJson: state.model.modelJson, weights: state.model.weights, layers: state.model.summary.layers },
    rate: rateValue(),
    maxLoads: state.maxLoads,
    running: state.running && state.enabled.has(id),
    // One lane profiles the model for the "where predict spends its time" table.
    profile: id === 'default',
  });
}

function onLaneMessage(lane, data) {
  switch (data.type) {
    case 'ready':
      lane.threads = data.threads;
      lane.output = data.output;
      lane.status = state.running && state.enabled.has(lane.def.id) ? 'running' : 'paused';
      if (data.profile) renderProfile(data.profile);
      break;
    case 'batch': {
      addSamples(lane, data.samples);
      lane.stats = data.stats;
      lane.loadsPerSec = data.loadsPerSec;
      lane.note = data.predictError;
      if (lane.status !== 'error') {
        if (lane.latest !== null && lane.latest.loads >= state.maxLoads) lane.status = 'done';
        else lane.status = data.running ? 'running' : 'paused';
      }
      break;
    }
    case 'error':
      lane.status = 'error';
      lane.error = data.code ? `${data.code}: ${data.message}` : data.message;
      break;
  }
  scheduleRender();
}

function addSamples(lane, flat) {
  const k = SAMPLE_FIELDS.length;
  for (let i = 0; i + k <= flat.length; i += k) {
    const loads = flat[i];
    lane.latest = {};
    for (let j = 0; j < k; j++) lane.latest[SAMPLE_FIELDS[j]] = flat[i + j];
    if (loads % state.stride !== 0) continue;
    const idx = loads / state.stride;
    for (let j = 0; j < k; j++) lane.cols[SAMPLE_FIELDS[j]][idx] = flat[i + j];
  }
  // Keep the charts light: thin every lane's points by 2 when one lane has too many.
  while (lane.cols.loads.length > MAX_POINTS) {
    state.stride *= 2;
    for (const l of Object.values(lanes)) {
      if (l.cols === null) continue;
      for (const f of SAMPLE_FIELDS) l.cols[f] = l.cols[f].filter((_, i) => i % 2 === 0);
    }
  }
}

function send(id, msg) {
  lanes[id].worker?.postMessage(msg);
}

async function reset() {
  state.generation++;
  state.stride = 1;
  for (const lane of Object.values(lanes)) {
    lane.worker?.terminate();
    lane.worker = null;
    lane.cols = emptyCols();
    lane.latest = null;
    lane.stats = null;
    lane.status = 'idle';
    lane.note = null;
    lane.error = null;
    lane.output = null;
  }
  charts.setData([], {});
  render();
  const gen = state.generation;
  const label = state.custom?.label ?? state.modelId;
  try {
    if (state.custom !== null) state.model = state.custom.model;
    else {
      setStatus(`Fetching the ${label} model…`);
      const dir = SAMPLES.find((x) => x.id === state.modelId)?.dir ?? state.modelId;
      state.model = await fetchModel(new URL(`${dir}/model.json`, MODELS_URL).href, state.modelId);
    }
  } catch (e) {
    if (gen === state.generation) setStatus(`Could not load the model: ${e.message}`, 'error');
    return;
  }
  if (gen !== state.generation) return;
  const s = state.model.summary;
  setStatus(
    `${s.name}: ${s.variables} variables, ${s.nodes} ${s.layers ? 'Keras layers' : 'graph nodes'}, ${formatBytes(s.bytes)} of weights, ` +
      `held in memory by each lane.`,
  );
  $('#profile').hidden = true;
  // The TF.js lane starts (and downloads TF.js) only when it is on.
  for (const l of LANES) if (!l.tfjs || state.enabled.has(l.id)) startLane(l.id);
  render();
}

// ---- rendering -----------------------------------------------------------------------------------

/** The selected model's top ops by time in one predict (`model.profile`, kernels cached). */
function renderProfile(p) {
  const box = $('#profile');
  box.hidden = false;
  const body = box.querySelector('tbody');
  body.replaceChildren();
  const caption = box.querySelector('p');
  if (p.error) {
    caption.textContent = `No profile: ${p.error}`;
    return;
  }
  // A loop's nodes are listed once with their runs (all its iterations).
  const loops = p.runs > p.nodes ? ` (${p.runs} runs: loop iterations counted)` : '';
  caption.textContent = `One predict, ${p.nodes} ${state.model?.summary?.layers ? 'layer calls' : 'nodes'}${loops}, ${p.totalMs.toFixed(2)} ms in kernels (model.profile(), kernels cached).`;
  for (const o of p.byOp.slice(0, 8)) {
    const tr = document.createElement('tr');
    for (const text of [o.op, String(o.count), o.ms.toFixed(3), `${(o.share * 100).toFixed(1)}%`]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    body.append(tr);
  }
}

let charts = null;
let renderQueued = false;
let lastRender = 0;

function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  const wait = Math.max(0, REDRAW_MS - (performance.now() - lastRender));
  setTimeout(() => requestAnimationFrame(render), wait);
}

function chartData() {
  let n = 0;
  const per = {};
  for (const l of LANES) {
    const lane = lanes[l.id];
    if (lane.cols === null) continue;
    per[l.id] = lane.cols;
    n = Math.max(n, lane.cols.loads.length);
  }
  const xs = Array.from({ length: n }, (_, i) => i * state.stride);
  return [xs, per];
}

function render() {
  renderQueued = false;
  lastRender = performance.now();
  const [xs, per] = chartData();
  charts.setData(xs, per);
  for (const l of LANES) renderCard(lanes[l.id]);
  const toggle = $('#toggle');
  toggle.textContent = state.running ? 'Pause' : 'Resume';
  toggle.setAttribute('aria-pressed', String(!state.running));
}

const STATUS_TEXT = {
  idle: 'idle',
  na: 'graph models only',
  starting: 'starting…',
  running: 'running',
  paused: 'paused',
  done: 'done',
  error: 'stopped: error',
};

function renderCard(lane) {
  const card = document.querySelector(`[data-lane-card="${lane.def.id}"]`);
  const m = lane.latest;
  const set = (metric, value) => {
    const el = card.querySelector(`[data-metric="${metric}"]`);
    const text = value === null || value === undefined ? '' : String(Math.round(value));
    if (el.textContent !== text) el.textContent = text;
  };
  const human = (metric, text) => {
    const el = card.querySelector(`[data-human="${metric}"]`);
    if (el.textContent !== text) el.textContent = text;
  };
  for (const f of SAMPLE_FIELDS) set(f, m?.[f]);
  for (const f of ['cacheBytes', 'heapBytes', 'wasmMemoryBytes']) human(f, m ? formatBytes(m[f]) : '–');
  for (const f of ['loads', 'cacheEntries', 'numTensors', 'numResources']) human(f, m ? formatCount(m[f]) : '–');
  const st = lane.stats;
  const lookups = st ? st.hits + st.misses : 0;
  human('hitRate', st && lookups > 0 ? `${((100 * st.hits) / lookups).toFixed(1)}%` : '–');
  human('lookups', st ? `${formatCount(st.hits)} hits / ${formatCount(st.misses)} misses` : '');
  human('evictions', st ? formatCount(st.evictions) : '–');
  set('evictions', st?.evictions);
  human('loadsPerSec', lane.status === 'running' ? `${formatCount(lane.loadsPerSec)}/s` : '–');
  const status = card.querySelector('.lane-status');
  const statusText = state.enabled.has(lane.def.id) ? STATUS_TEXT[lane.status] : 'off';
  if (status.textContent !== statusText) status.textContent = statusText;
  card.dataset.status = lane.status;
  card.classList.toggle('off', !state.enabled.has(lane.def.id));
  const threads = lane.threads ? ` · ${lane.threads} thread${lane.threads === 1 ? '' : 's'}` : '';
  card.querySelector('.settings').textContent = lane.def.settingsText(laneOptions()) + threads;

  const warnings = card.querySelector('.warnings');
  const msgs = (st?.warnings ?? []).map((w) => w.message);
  const key = msgs.join('\n');
  if (warnings.dataset.key !== key) {
    warnings.dataset.key = key;
    warnings.textContent = '';
    for (const msg of msgs.slice(0, 3)) {
      const li = document.createElement('li');
      li.textContent = msg;
      warnings.append(li);
    }
    warnings.hidden = msgs.length === 0;
  }
  renderInspector(card, st?.byOp ?? null, st?.attrBytes ?? 0);
  if (lane.def.tfjs) renderOutputCheck(card, lane, lanes.default);
  const note = card.querySelector('.lane-note');
  const noteText = lane.error ?? lane.note ?? '';
  if (note.textContent !== noteText) note.textContent = noteText;
  note.hidden = noteText === '';
  note.classList.toggle('error', lane.error !== null);
}

/** The TF.js lane's predict output beside lane 5's, for the same fixed input. */
function renderOutputCheck(card, lane, ref) {
  const el = card.querySelector('.output-check');
  const a = lane.output;
  const b = ref.output;
  let text = '';
  if (a && b) {
    const shapes = `[${a.shape}]` === `[${b.shape}]`;
    let diff = 0;
    let scale = 1;
    for (let i = 0; i < Math.min(a.values.length, b.values.length); i++) {
      diff = Math.max(diff, Math.abs(a.values[i] - b.values[i]));
      scale = Math.max(scale, Math.abs(b.values[i]));
    }
    const d = diff === 0 ? '0' : diff.toPrecision(2);
    const same = shapes && a.values.length === b.values.length && diff <= 1e-4 * scale;
    el.dataset.match = String(same);
    el.dataset.maxDiff = String(diff);
    text = same
      ? `predict output [${a.shape}] = lane ${ref.def.n}'s for the same input (largest difference ${d})`
      : `predict output differs from lane ${ref.def.n}'s: [${a.shape}] vs [${b.shape}], largest difference ${d}`;
  }
  if (el.textContent !== text) el.textContent = text;
  el.hidden = text === '';
}

function figure(metric, label, { bytes = false, exact = true } = {}) {
  // Exact integers live in [data-metric] (tests and screen readers read them); bytes also get a
  // human-readable figure beside them.
  if (!exact) return `<div class="fig"><dt>${label}</dt><dd><span data-human="${metric}">–</span></dd></div>`;
  if (bytes) {
    return `<div class="fig"><dt>${label}</dt><dd><span class="human" data-human="${metric}">–</span>
      <span class="exact" data-metric="${metric}"></span><span class="unit"> B</span></dd></div>`;
  }
  return `<div class="fig"><dt>${label}</dt><dd><span class="visually-hidden" data-metric="${metric}"></span>
    <span aria-hidden="true" data-human="${metric}">–</span></dd></div>`;
}

function buildCards() {
  const box = $('#lanes');
  box.textContent = '';
  for (const l of LANES) {
    const card = document.createElement('article');
    card.className = 'lane';
    card.dataset.laneCard = l.id;
    card.style.setProperty('--lane', l.color);
    card.innerHTML = `
      <header>
        <h2><span class="num">${l.n}</span> ${l.name}</h2>
        <span class="tag">${l.tag}</span>
        <span class="lane-status"></span>
      </header>
      <code class="settings"></code>
      <dl class="figures">
        ${figure('loads', 'loads')}
        ${figure('cacheEntries', 'cache entries')}
        ${figure('cacheBytes', 'cache bytes', { bytes: true })}
        ${figure('heapBytes', 'heap in use', { bytes: true })}
        ${figure('wasmMemoryBytes', 'wasm memory', { bytes: true })}
        ${figure('numTensors', 'live tensors')}
        ${figure('numResources', 'resources')}
        ${figure('hitRate', 'hit rate', { exact: false })}
        ${figure('evictions', 'evictions')}
        ${figure('loadsPerSec', 'speed', { exact: false })}
      </dl>
      <p class="lookups" data-human="lookups"></p>
      <ul class="warnings" aria-label="churn warnings" hidden></ul>
      ${inspectorHtml()}
      <p class="output-check" hidden></p>
      <p class="lane-note" hidden></p>
      <p class="explain">${l.explain}</p>`;
    // data-lane on every readout of this card.
    for (const el of card.querySelectorAll('[data-metric]')) el.dataset.lane = l.id;
    initInspector(card, () => renderCard(lanes[l.id]));
    box.append(card);
  }
}

function buildLegend() {
  const box = $('#legend');
  box.textContent = '';
  for (const l of LANES) {
    const label = document.createElement('label');
    label.className = 'legend-item';
    label.style.setProperty('--lane', l.color);
    label.innerHTML = `<input type="checkbox" data-lane-toggle="${l.id}" /><span class="swatch${l.dash ? ' dashed' : ''}"></span>
      <span class="legend-name"><span class="num">${l.n}</span> ${l.name}</span>`;
    const box2 = label.querySelector('input');
    box2.checked = state.enabled.has(l.id);
    box2.addEventListener('change', () => setLaneEnabled(l.id, box2.checked));
    box.append(label);
    if (!box2.checked) charts.setVisible(l.id, false);
  }
  const log = document.createElement('label');
  log.className = 'legend-item log-toggle';
  log.innerHTML = `<input type="checkbox" id="log-scale" /> <span>log scale</span>`;
  const input = log.querySelector('input');
  input.checked = state.log;
  input.addEventListener('change', () => {
    state.log = input.checked;
    makeCharts();
    render();
  });
  box.append(log);
}

function makeCharts() {
  charts?.destroy();
  charts = createCharts($('#charts'), LANES, { log: state.log });
  for (const l of LANES) if (!state.enabled.has(l.id)) charts.setVisible(l.id, false);
}

function setLaneEnabled(id, on) {
  if (on) state.enabled.add(id);
  else state.enabled.delete(id);
  charts.setVisible(id, on);
  // A lane not started yet (the TF.js lane) starts running or paused as the page is.
  if (on && lanes[id].worker === null && lanes[id].status === 'idle' && state.model !== null) startLane(id);
  else send(id, { type: on && state.running ? 'run' : 'pause' });
  render();
}

// ---- controls ------------------------------------------------------------------------------------

function buildControls() {
  const sel = $('#model');
  for (const s of SAMPLES) sel.append(new Option(s.label, s.id, false, s.id === state.modelId));
  sel.addEventListener('change', () => {
    if (sel.value === 'custom') return;
    state.modelId = sel.value;
    state.custom = null;
    sel.querySelector('option[value="custom"]')?.remove();
    reset();
  });

  const rate = $('#rate');
  if (![...rate.options].some((o) => o.value === state.rate)) rate.append(new Option(`${state.rate} loads/s`, state.rate));
  rate.value = state.rate;
  rate.addEventListener('change', () => {
    state.rate = rate.value;
    for (const l of LANES) send(l.id, { type: 'rate', rate: rateValue() });
  });

  positiveIntInput($('#lru-capacity'), 'lruCapacity', (n) => {
    send('lru', { type: 'cache', options: { maxEntries: n } });
    render();
  });
  positiveIntInput($('#max-loads'), 'maxLoads', (n) => {
    for (const l of LANES) send(l.id, { type: 'maxLoads', maxLoads: n });
  });

  $('#toggle').addEventListener('click', () => {
    state.running = !state.running;
    for (const l of LANES) {
      if (state.enabled.has(l.id)) send(l.id, { type: state.running ? 'run' : 'pause' });
    }
    render();
  });
  $('#reset').addEventListener('click', () => reset());

  const useCustom = (label, model) => {
    state.custom = { label, model };
    let opt = sel.querySelector('option[value="custom"]');
    if (opt === null) {
      opt = new Option('', 'custom');
      sel.append(opt);
    }
    opt.textContent = `Your model: ${label}`;
    sel.value = 'custom';
    state.running = true;
    reset();
  };

  $('#files').addEventListener('change', async (e) => {
    const files = e.target.files;
    if (!files || files.length === 0) return;
    try {
      setStatus('Reading the selected files…');
      const model = await modelFromFiles(files);
      useCustom(model.summary.name, model);
    } catch (err) {
      setStatus(err.message, 'error');
    }
  });

  $('#url-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const url = $('#url').value.trim();
    if (url === '') return;
    try {
      setStatus(`Fetching ${url}…`);
      const abs = new URL(url, location.href).href;
      const model = await fetchModel(abs, abs.split('/').slice(-2).join('/'));
      useCustom(model.summary.name, model);
    } catch (err) {
      setStatus(`Could not load ${url}: ${err.message}`, 'error');
    }
  });
}

/** Memory of the whole page (all lanes' workers), where the browser can measure it. */
async function pageMemory() {
  const el = $('#page-memory');
  if (!self.crossOriginIsolated || typeof performance.measureUserAgentSpecificMemory !== 'function') {
    el.textContent = '';
    return;
  }
  try {
    const r = await performance.measureUserAgentSpecificMemory();
    const workers = r.breakdown.filter((b) => b.attribution.some((a) => a.scope === 'DedicatedWorkerGlobalScope')).length;
    el.textContent =
      `The browser's own figure for this page (performance.measureUserAgentSpecificMemory: page and ` +
      `${workers} worker JS heaps, DOM, canvases), measured ${new Date().toLocaleTimeString()}: ${formatBytes(r.bytes)}.`;
  } catch {
    el.textContent = '';
  }
  setTimeout(pageMemory, 10000);
}

makeCharts();
buildLegend();
buildCards();
buildControls();
render();
reset();
pageMemory();
