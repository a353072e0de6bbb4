// The model zoo cases (issue 18): real architectures with random weights made by
// tools/gen_zoo.py into bench/models/zoo/<name>/ (gitignored). Each model present runs two cases,
// predict and load -> predict -> dispose, for eager-wasm and TF.js; an absent one is reported as
// n/a with the command that makes it.

export const ZOO_MODELS = [
  'mobilenet_v2',
  'mobilenet_v3_small',
  'mobilenet_v3_large',
  'efficientnet_b0',
  'resnet50',
  'blazeface',
  'landmarks',
  'unet',
];

const dirOf = (name) => `bench/models/zoo/${name}`;
export const genCommand = (name) => `/tmp/tfenv/bin/python tools/gen_zoo.py ${name}`;

/** Reads a zoo model (model.json, shards concatenated, TF's reference); null if absent. */
export async function readZooModel(bytes, name) {
  const dir = dirOf(name);
  let modelJson;
  try {
    modelJson = JSON.parse(new TextDecoder().decode(await bytes(`${dir}/model.json`)));
  } catch {
    return null;
  }
  const paths = modelJson.weightsManifest.flatMap((g) => g.paths);
  const shards = await Promise.all(paths.map((p) => bytes(`${dir}/${p}`)));
  const weights = new Uint8Array(shards.reduce((s, b) => s + b.length, 0));
  let off = 0;
  for (const b of shards) weights.set(b, off), (off += b.length);
  const ref = JSON.parse(new TextDecoder().decode(await bytes(`${dir}/reference.json`)));
  const [inputKey] = Object.keys(modelJson.signature.inputs);
  const xin = ref.inputs[inputKey];
  // Outputs in signature order: eager-wasm fetches them by key, TF.js by tensor name.
  const outKeys = Object.keys(modelJson.signature.outputs);
  const outTensors = outKeys.map((k) => modelJson.signature.outputs[k].name);
  const y = Float32Array.from(outKeys.flatMap((k) => ref.outputs[k].data));
  return { modelJson, weights: weights.buffer, x: new Float32Array(xin.data), shape: xin.shape, inputKey, outKeys, outTensors, y };
}

/** The tensors' values in order, concatenated; the tensors disposed. */
function readAll(ts) {
  const list = Array.isArray(ts) ? ts : [ts];
  const parts = list.map((t) => t.dataSync());
  for (const t of list) t.dispose();
  if (parts.length === 1) return parts[0];
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let off = 0;
  for (const p of parts) out.set(p, off), (off += p.length);
  return out;
}

/**
 * @param {object} h helpers from suite.mjs: `data` (bytes, cachedAsync), `na(reason)`,
 *   `missingOps(E, opNames)`, `tfjsLoad(T, fx)`, `log`
 */
export function zooCases(h) {
  const cases = [];
  for (const name of ZOO_MODELS) {
    const fixture = () =>
      h.data.cachedAsync(`zoo_${name}`, async () => {
        const fx = await readZooModel(h.data.bytes, name);
        if (!fx) h.log(`[zoo_${name}] absent: run \`${genCommand(name)}\` to make bench/models/zoo/${name}`);
        return fx;
      });
    const need = async () => (await fixture()) ?? h.na(`absent: run ${genCommand(name)}`);
    const eagerLoad = (E, fx) => {
      const missing = h.missingOps(E, fx.modelJson.modelTopology.node.map((n) => n.op));
      if (missing.length) h.na(`model ops not in eager-wasm yet: ${missing.join(', ')}`);
      return E.ctx.loadGraphModel({ modelJson: fx.modelJson, weights: fx.weights });
    };
    const eagerPredict = (E, model, fx) => {
      const x = E.ctx.tensor(fx.x, fx.shape);
      const v = readAll(model.execute(x, fx.outKeys));
      x.dispose();
      return v;
    };
    const tfjsPredict = (T, model, fx) => {
      const x = T.tf.tensor(fx.x, fx.shape);
      const v = readAll(model.execute(x, fx.outTensors));
      x.dispose();
      return v;
    };
    const noOnnx = () => h.na('no ONNX version of the zoo models');
    const common = { unit: 'ms', ref: async () => (await fixture())?.y ?? null, refLabel: 'TF reference.json', ort: noOnnx };
    cases.push({
      ...common,
      id: `zoo_${name}_predict`,
      label: `zoo ${name}: predict, batch 1`,
      eager: async (E) => {
        const fx = await need();
        const model = await eagerLoad(E, fx);
        return { step: () => eagerPredict(E, model, fx), dispose: () => model.dispose() };
      },
      tfjs: async (T) => {
        const fx = await need();
        const model = await h.tfjsLoad(T, fx);
        return { step: () => tfjsPredict(T, model, fx), dispose: () => model.dispose() };
      },
    });
    cases.push({
      ...common,
      id: `zoo_${name}_load_predict_dispose`,
      label: `zoo ${name}: load (in memory) -> predict -> dispose`,
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
          const model = await h.tfjsLoad(T, fx);
          const v = tfjsPredict(T, model, fx);
          model.dispose();
          return v;
        };
        return { step, async: true };
      },
    });
  }
  return cases;
}
