// The model zoo cases: real architectures with random weights made by
// tools/gen_zoo.py into bench/models/zoo/<name>/ (gitignored). Each model present runs the two
// cases of bench/model-cases.mjs (predict; load -> predict -> dispose) in eager-wasm, TF.js and, where
// tf2onnx converted it (<name>/model.onnx), ORT; an absent model is reported as n/a with the
// command that makes it.

import { modelCases, readModel } from './model-cases.mjs';

export const ZOO_MODELS = [
  'mobilenet_v2',
  'mobilenet_v3_small',
  'mobilenet_v3_large',
  'efficientnet_b0',
  'resnet50',
  'blazeface',
  'blazeface_256',
  'landmarks',
  'unet',
  // Shapes of published models that were slower than TF.js: a small-input CNN with
  // 3x3 VALID convs (and dead, denormal-scaled channels), a CenterNet decode (Equal + TopKV2 k=100
  // over 1.3 M scores), MoveNet's pre/post-processing, a MobileFaceNet with PReLU.
  'age_cnn',
  'centernet_512',
  'movenet_192',
  'mobilefacenet_112',
  // A GRU text classifier (two while loops), in both control-flow lowerings.
  'gru',
  'gru_v2',
];

const dirOf = (name) => `bench/models/zoo/${name}`;
// `<name>_v2` of a control-flow model is the functional-While lowering gen_zoo.py writes with it.
export const genCommand = (name) => `/tmp/tfenv/bin/python tools/gen_zoo.py ${name === 'gru_v2' ? 'gru' : name}`;

/** A zoo model (readModel's fixture, ONNX included); null if absent. */
export const readZooModel = (bytes, name) => readModel(bytes, dirOf(name), { onnxPath: `${dirOf(name)}/model.onnx` });

/**
 * @param {object} h helpers from suite.mjs: `data` (bytes, cachedAsync), `na(reason)`,
 *   `ortOptions`, `log`
 */
export function zooCases(h) {
  return ZOO_MODELS.flatMap((name) =>
    modelCases(h, {
      id: `zoo_${name}`,
      label: `zoo ${name}`,
      fixture: () =>
        h.data.cachedAsync(`zoo_${name}`, async () => {
          const fx = await readZooModel(h.data.bytes, name);
          if (!fx) h.log(`[zoo_${name}] absent: run \`${genCommand(name)}\` to make bench/models/zoo/${name}`);
          return fx;
        }),
      absent: `absent: run ${genCommand(name)}`,
      noOnnx: 'tf2onnx did not convert this model (tools/gen_zoo.py)',
      ortNote: 'tf2onnx conversion of the same SavedModel (tools/gen_zoo.py)',
    }),
  );
}
