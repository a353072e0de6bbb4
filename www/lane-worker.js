// One lane = one Web Worker = one wasm instance + one EagerContext, so the heap and wasm-memory
// figures a lane reports are its own. The loop: loadGraphModel (loadLayersModel for a Keras model
// in the layers format), from bytes held in memory so a load measures the runtime, not the
// network -> predict once on a fixed random input -> dispose -> record the figures. Figures go
// to the page in batches (at most ~20 a second). The TF.js lane (start with tfjsUrl) runs the same
// loop through TF.js's API on the 'eager-wasm' backend (tfjs-lane.js).
//
// Messages in:  start { pkgUrl, tfjsUrl?, laneId, options, model: { modelJson, weights, layers }, rate, maxLoads, running, profile }
//               run | pause | rate { rate } | maxLoads { maxLoads } | cache { options }
// Messages out: ready { inputs, outputs, output, profile: { byOp, totalMs, nodes, runs } | { error } | null } | batch { samples, stats, ... } | error { message, code }
//               (output: the first output of a predict on the fixed input, for comparing lanes)
//               (stats.byOp: per-op figures for the card's cache inspector)

// A sample is 7 numbers, in the order of SAMPLE_FIELDS in lanes.js.

let ctx = null; // the EagerContext (the TF.js lane: the same methods over tf and its backend)
let loadModel = null; // () => a model with inputs, outputs, predict, dispose
let model = null; // { modelJson, weights }
let inputs = null; // fixed input tensors, by signature name
let running = false;
let rate = Infinity; // loads per second
let maxLoads = Infinity;
let loads = 0;
let pending = []; // flat samples not yet posted
let lastFlush = 0;
let predictError = null;
let loopActive = false;
let started = false; // start is done
let wake = null;
const recent = []; // timestamps of recent loads, for loads/s
let lastLoadMs = 0;

// A macrotask yield that is not clamped like nested setTimeout(0): lets messages (pause, rate,
// cache options) in between loads.
const channel = new MessageChannel();
const waiters = [];
channel.port1.onmessage = () => waiters.shift()?.();
const yieldTask = () =>
  new Promise((ok) => {
    waiters.push(ok);
    channel.port2.postMessage(0);
  });
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

function mulberry32(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fixed random inputs matching the model's signature (unknown dims become 1). */
function makeInputs(m) {
  const rand = mulberry32(40171);
  const out = {};
  for (const info of m.inputs) {
    const shape = (info.shape ?? [1]).map((d) => (d < 0 ? 1 : d));
    const size = shape.reduce((a, b) => a * b, 1);
    let values;
    if (info.dtype === 'int32') values = Int32Array.from({ length: size }, () => Math.floor(rand() * 10));
    else if (info.dtype === 'bool') values = Uint8Array.from({ length: size }, () => (rand() < 0.5 ? 1 : 0));
    else if (info.dtype === 'int64') values = BigInt64Array.from({ length: size }, () => BigInt(Math.floor(rand() * 10)));
    else values = Float32Array.from({ length: size }, () => rand());
    out[info.name] = ctx.tensor(values, shape, info.dtype === 'resource' ? 'float32' : info.dtype);
  }
  return out;
}

function disposeOutputs(out) {
  if (out === null || out === undefined) return;
  if (typeof out.dispose === 'function') out.dispose();
  else for (const t of Object.values(out)) t?.dispose?.();
}

function record() {
  const m = ctx.memory();
  pending.push(loads, m.cacheEntries, m.cacheBytes, m.heapBytes, m.wasmMemoryBytes, m.numTensors, m.numResources);
}

function flush(force = false) {
  const now = performance.now();
  if (!force && now - lastFlush < 50) return;
  lastFlush = now;
  while (recent.length > 0 && recent[0] < now - 2000) recent.shift();
  const span = recent.length > 1 ? (recent[recent.length - 1] - recent[0]) / 1000 : 0;
  const s = ctx.cacheStats();
  const samples = new Float64Array(pending);
  pending = [];
  postMessage(
    {
      type: 'batch',
      samples,
      stats: {
        hits: s.hits,
        misses: s.misses,
        evictions: s.evictions,
        bypassed: s.bypassed,
        warnings: s.warnings.map((w) => ({ op: w.op, message: w.message, attrs: w.attrs })),
        byOp: inspectorStats(s.byOp),
        attrBytes: s.attrBytes,
      },
      loadsPerSec: span > 0 ? (recent.length - 1) / span : 0,
      lastLoadMs,
      predictError,
      running: running && loads < maxLoads,
    },
    [samples.buffer],
  );
}

/** The per-op figures the card's cache inspector shows (www/inspector.js). */
function inspectorStats(byOp) {
  return Object.entries(byOp).map(([op, o]) => ({
    op,
    entries: o.entries,
    bytes: o.bytes,
    hits: o.hits,
    misses: o.misses,
    bypassed: o.bypassed,
    keys: o.distinctKeys,
    keysExact: o.distinctExact,
    attrs: Object.entries(o.attrs).map(([name, a]) => ({
      name,
      values: a.distinctValues,
      exact: a.distinctExact,
      perCall: a.variesPerCall,
      examples: a.examples,
    })),
  }));
}

/** The first output's values of a predict on the fixed inputs (null if predict fails). */
async function firstOutput(m) {
  let out;
  try {
    out = await m.predict(inputs);
  } catch {
    return null; // the loop says why on the card
  }
  try {
    const t = typeof out.dataSync === 'function' ? out : Object.values(out)[0];
    // At most 4096 values: enough to compare, small to post.
    return { shape: t.shape, values: Float64Array.from(t.dataSync().slice(0, 4096)) };
  } catch {
    return null; // e.g. a string output: nothing to compare
  } finally {
    disposeOutputs(out);
  }
}

async function oneLoad() {
  const t0 = performance.now();
  const m = await loadModel();
  try {
    if (predictError === null) {
      try {
        disposeOutputs(await m.predict(inputs));
      } catch (e) {
        // e.g. a kernel this build does not have yet: keep measuring loads, say so on the card.
        predictError = `predict skipped: ${e.message}`;
        if (e.code === 'Internal') throw e;
      }
    }
  } finally {
    m.dispose();
  }
  loads++;
  const t1 = performance.now();
  lastLoadMs = t1 - t0;
  recent.push(t1);
  record();
}

async function loop() {
  // Not before start is done ('start' says whether to run).
  if (loopActive || !started) return;
  loopActive = true;
  let next = performance.now();
  try {
    while (running && loads < maxLoads) {
      if (rate === Infinity) {
        const t0 = performance.now();
        do await oneLoad();
        while (running && loads < maxLoads && performance.now() - t0 < 25);
        flush();
        await yieldTask();
        next = performance.now();
      } else {
        await oneLoad();
        flush();
        next = Math.max(next + 1000 / rate, performance.now() - 1000 / rate);
        const wait = next - performance.now();
        if (wait > 0) await Promise.race([sleep(wait), new Promise((ok) => (wake = ok))]);
        else await yieldTask();
      }
    }
  } catch (e) {
    running = false;
    flush(true);
    postMessage({ type: 'error', message: e?.message ?? String(e), code: e?.code ?? null });
  } finally {
    loopActive = false;
    flush(true);
  }
}

onmessage = async ({ data }) => {
  try {
    switch (data.type) {
      case 'start': {
        model = data.model;
        let threads;
        if (data.tfjsUrl) {
          ({ ctx, load: loadModel, threads } = await (await import(data.tfjsUrl)).tfjsLane(model));
        } else {
          const api = await import(data.pkgUrl);
          // A Keras (layers-format) model needs the layers build (single-threaded); a graph model
          // gets init()'s default: the threaded build on this cross-origin-isolated page.
          await api.init(model.layers ? { layers: true } : undefined);
          ctx = new api.EagerContext(data.options);
          // A graph model, or a Keras model in the TF.js layers format (the page says which).
          loadModel = () => (model.layers ? ctx.loadLayersModel(model) : ctx.loadGraphModel(model));
          threads = api.wasmFeatures().threads;
        }
        rate = data.rate;
        maxLoads = data.maxLoads;
        // One load outside the loop to learn the signature (its figures are not the story).
        const probe = await loadModel();
        const info = { inputs: probe.inputs, outputs: probe.outputs };
        inputs = makeInputs(info);
        const output = await firstOutput(probe);
        // The lane asked to: the per-node profile of a predict with the kernels already cached.
        let profile = null;
        if (data.profile) {
          try {
            probe.profile(inputs);
            profile = probe.profile(inputs);
            const runs = profile.nodes.reduce((s, n) => s + n.count, 0);
            profile = { byOp: profile.byOp, totalMs: profile.totalMs, nodes: profile.nodes.length, runs };
          } catch (e) {
            profile = { error: e?.message ?? String(e) };
          }
        }
        probe.dispose();
        ctx.resetCache();
        record(); // loads = 0
        postMessage({ type: 'ready', ...info, output, profile, threads });
        flush(true);
        started = true;
        running = data.running;
        loop();
        break;
      }
      case 'run':
        running = true;
        loop();
        break;
      case 'pause':
        running = false;
        wake?.();
        break;
      case 'rate':
        rate = data.rate;
        wake?.();
        break;
      case 'maxLoads':
        maxLoads = data.maxLoads;
        if (running) loop();
        break;
      case 'cache':
        ctx.setCacheOptions(data.options);
        record();
        flush(true);
        break;
    }
  } catch (e) {
    running = false;
    postMessage({ type: 'error', message: e?.message ?? String(e), code: e?.code ?? null });
  }
};
