// The model cases of the benchmark, for the sample models (tests/fixtures/models) and the zoo
// (bench/models/zoo) alike: a fixture loader reads a TF.js graph model, TF's reference and, where
// there is one, its ONNX version; `modelCases` makes its two cases, predict and
// load -> predict -> dispose, for eager-wasm, TF.js and ORT.

/** Ops the model executor runs itself, not as kernels (v1 dataflow and v2 functional control flow). */
export const CONTROL_FLOW = new Set([
  'Enter', 'Exit', 'Merge', 'Switch', 'NextIteration', 'LoopCond',
  'While', 'StatelessWhile', 'If', 'StatelessIf', 'PartitionedCall', 'StatefulPartitionedCall',
]);

const ARRAYS = { float32: Float32Array, int32: Int32Array };

/** Every op of a model.json, function bodies included. */
export function modelOps(modelJson) {
  const topo = modelJson.modelTopology;
  const fns = topo.library?.function ?? [];
  return [...new Set([...topo.node, ...fns.flatMap((f) => f.nodeDef ?? [])].map((n) => n.op))];
}

/**
 * Reads the graph model in `dir` (model.json, shards concatenated, TF's reference.json) and the
 * ONNX model at `onnxPath`, if given and present; null if model.json is absent. `batch1`: keep only
 * the first example of the reference (the sample fixtures hold batch 2).
 */
export async function readModel(bytes, dir, { onnxPath = null, batch1 = false } = {}) {
  const text = async (p) => new TextDecoder().decode(await bytes(p));
  let modelJson;
  try {
    modelJson = JSON.parse(await text(`${dir}/model.json`));
  } catch {
    return null;
  }
  const paths = modelJson.weightsManifest.flatMap((g) => g.paths);
  const shards = await Promise.all(paths.map((p) => bytes(`${dir}/${p}`)));
  const weights = new Uint8Array(shards.reduce((s, b) => s + b.length, 0));
  let off = 0;
  for (const b of shards) weights.set(b, off), (off += b.length);
  const ref = JSON.parse(await text(`${dir}/reference.json`));
  const first = (t) => {
    if (!batch1) return { data: t.data, shape: t.shape };
    const per = t.shape.slice(1).reduce((a, b) => a * b, 1);
    return { data: t.data.slice(0, per), shape: [1, ...t.shape.slice(1)] };
  };
  // Inputs and outputs in signature order: eager-wasm and ORT name them by key, TF.js by tensor.
  const sig = modelJson.signature;
  const inputs = Object.keys(sig.inputs).map((key) => {
    const { data, shape } = first(ref.inputs[key]);
    const dtype = ref.inputs[key].dtype;
    if (!ARRAYS[dtype]) throw new Error(`${dir}: input '${key}' is ${dtype}; the bench feeds float32 and int32`);
    return { key, node: sig.inputs[key].name.replace(/:0$/, ''), dtype, shape, data: ARRAYS[dtype].from(data) };
  });
  const outKeys = Object.keys(sig.outputs);
  const outTensors = outKeys.map((k) => sig.outputs[k].name);
  const y = Float32Array.from(outKeys.flatMap((k) => first(ref.outputs[k]).data));
  let onnx = null;
  if (onnxPath) {
    try {
      onnx = await bytes(onnxPath);
    } catch {
      onnx = null;
    }
  }
  const ops = modelOps(modelJson);
  // TF.js runs control flow only through executeAsync.
  const loops = ops.some((o) => CONTROL_FLOW.has(o));
  return { modelJson, weights: weights.buffer, inputs, outKeys, outTensors, y, onnx, ops, loops };
}

/** The tensors' values in order, concatenated; the tensors disposed. */
function readAll(list) {
  const parts = list.map((t) => t.dataSync());
  for (const t of list) t.dispose();
  if (parts.length === 1) return parts[0];
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let off = 0;
  for (const p of parts) out.set(p, off), (off += p.length);
  return out;
}

/** A TF.js graph model from `{ modelJson, weights }` in memory. */
export function tfjsLoad(T, fx) {
  const m = fx.modelJson;
  return T.loadGraphModel(
    T.tf.io.fromMemory({
      modelTopology: m.modelTopology,
      weightSpecs: m.weightsManifest.flatMap((g) => g.weights),
      weightData: fx.weights,
      format: m.format,
      generatedBy: m.generatedBy,
      convertedBy: m.convertedBy,
      signature: m.signature,
      userDefinedMetadata: m.userDefinedMetadata,
    }),
  );
}

function eagerPredict(E, model, fx) {
  const feeds = {};
  for (const i of fx.inputs) feeds[i.key] = E.ctx.tensor(i.data, i.shape);
  const y = model.predict(feeds);
  for (const t of Object.values(feeds)) t.dispose();
  // One output: a Tensor; several: by signature key.
  return readAll(fx.outKeys.length === 1 ? [y] : fx.outKeys.map((k) => y[k]));
}

/** TF.js's output values; a Promise for a control-flow model (executeAsync). */
function tfjsPredict(T, model, fx) {
  const xs = fx.inputs.map((i) => T.tf.tensor(i.data, i.shape, i.dtype));
  const feeds = xs.length === 1 ? xs[0] : Object.fromEntries(fx.inputs.map((i, k) => [i.node, xs[k]]));
  const done = (ys) => {
    for (const x of xs) x.dispose();
    return readAll(Array.isArray(ys) ? ys : [ys]);
  };
  return fx.loops ? model.executeAsync(feeds, fx.outTensors).then(done) : done(model.execute(feeds, fx.outTensors));
}

async function ortPredict(O, session, fx) {
  const feeds = {};
  for (const i of fx.inputs) feeds[i.key] = new O.ort.Tensor(i.dtype, i.data, i.shape);
  const res = await session.run(feeds);
  const parts = fx.outKeys.map((k) => res[k].data);
  if (parts.length === 1) return parts[0];
  return Float32Array.from(parts.flatMap((p) => Array.from(p)));
}

/**
 * The two cases of one model. `h`: `na(reason)` (throws: the cell is n/a), `eagerOps` (a Set of
 * the ops eager-wasm registers, from the runtime), `ortOptions`. `m`: `id`, `label`, `fixture()`
 * (a Promise of `readModel`'s result, cached by the caller), `absent` (why a null fixture is n/a),
 * `noOnnx` (why a fixture without ONNX is n/a), `ortNote`.
 */
export function modelCases(h, m) {
  const need = async () => (await m.fixture()) ?? h.na(m.absent);
  const eagerLoad = (E, fx) => {
    const missing = fx.ops.filter((o) => !E.ops.has(o) && !CONTROL_FLOW.has(o));
    if (missing.length) h.na(`model ops not in eager-wasm yet: ${missing.join(', ')}`);
    return E.ctx.loadGraphModel({ modelJson: fx.modelJson, weights: fx.weights });
  };
  const needOnnx = async () => {
    const fx = await need();
    return fx.onnx ? fx : h.na(m.noOnnx);
  };
  const common = { unit: 'ms', ref: async () => (await m.fixture())?.y ?? null, refLabel: 'TF reference.json' };
  const predict = {
    ...common,
    id: `${m.id}_predict`,
    label: `${m.label}: predict, batch 1`,
    eager: async (E) => {
      const fx = await need();
      const model = await eagerLoad(E, fx);
      return { step: () => eagerPredict(E, model, fx), dispose: () => model.dispose() };
    },
    tfjs: async (T) => {
      const fx = await need();
      const model = await tfjsLoad(T, fx);
      return { step: () => tfjsPredict(T, model, fx), async: fx.loops, dispose: () => model.dispose() };
    },
    ort: async (O) => {
      const fx = await needOnnx();
      const s = await O.ort.InferenceSession.create(fx.onnx, h.ortOptions);
      return { step: () => ortPredict(O, s, fx), async: true, dispose: () => s.release(), note: m.ortNote };
    },
  };
  const cycle = {
    ...common,
    id: `${m.id}_load_predict_dispose`,
    label: `${m.label}: load (in memory) -> predict -> dispose`,
    eager: async (E) => {
      const fx = await need();
      (await eagerLoad(E, fx)).dispose();
      const step = async () => {
        const model = await eagerLoad(E, fx);
        const v = eagerPredict(E, model, fx);
        model.dispose();
        return v;
      };
      return { step, async: true };
    },
    tfjs: async (T) => {
      const fx = await need();
      const step = async () => {
        const model = await tfjsLoad(T, fx);
        const v = await tfjsPredict(T, model, fx);
        model.dispose();
        return v;
      };
      return { step, async: true };
    },
    ort: async (O) => {
      const fx = await needOnnx();
      const step = async () => {
        const s = await O.ort.InferenceSession.create(fx.onnx, h.ortOptions);
        const v = await ortPredict(O, s, fx);
        await s.release();
        return v;
      };
      return { step, async: true, note: 'InferenceSession.create from the .onnx bytes -> run -> release' };
    },
  };
  return [predict, cycle];
}
