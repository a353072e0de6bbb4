// The TF.js lane's side of lane-worker.js: the code path of a TF.js app, unchanged (tfjs-core, the
// converter's loadGraphModel, model.predict, model.dispose) on the 'eager-wasm' backend. Bundled by
// scripts/lib/tfjs-lane.mjs into gen/tfjs-lane.js (a worker cannot resolve bare imports).

import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import { wasmFeatures } from 'eager-wasm';
import 'eager-wasm/tfjs';

/**
 * Sets the backend (its defaults: no setBackendOptions) and returns what the lane worker needs:
 * `ctx` (memory, cacheStats, tensor, resetCache, setCacheOptions as on an EagerContext) and `load`
 * ({ modelJson, weights } held in memory -> a model with inputs, outputs, predict, dispose).
 */
export async function tfjsLane(model) {
  if (!(await tf.setBackend('eager-wasm'))) throw new Error("tf.setBackend('eager-wasm') failed");
  const backend = tf.backend();
  const ctx = {
    // The runtime's figures, but live tensors as a TF.js app counts them.
    memory: () => ({ ...backend.context.memory(), numTensors: tf.memory().numTensors }),
    cacheStats: () => backend.cacheStats(),
    tensor: (values, shape, dtype) => tf.tensor(values, shape, dtype),
    resetCache: () => backend.context.resetCache(),
    setCacheOptions: (o) => backend.context.setCacheOptions(o),
  };
  let useExecuteAsync = false;
  const load = async () => {
    // From the bytes in memory, as the other lanes load: a load measures the runtime, not the network.
    const json = JSON.parse(model.modelJson);
    const manifest = json.weightsManifest ?? [];
    const shards = manifest.flatMap((g) => g.paths).map((p) => model.weights[p]);
    const artifacts = tf.io.getModelArtifactsForJSONSync(json, tf.io.getWeightSpecs(manifest), shards);
    const m = await loadGraphModel(tf.io.fromMemory(artifacts));
    return {
      inputs: m.inputs,
      outputs: m.outputs,
      // A control-flow model refuses predict() and asks for executeAsync(), as in any TF.js app.
      predict(x) {
        if (useExecuteAsync) return m.executeAsync(x);
        try {
          return m.predict(x);
        } catch (e) {
          if (!/executeAsync/.test(e?.message)) throw e;
          useExecuteAsync = true;
          return m.executeAsync(x);
        }
      },
      dispose: () => m.dispose(),
    };
  };
  return { ctx, load, threads: wasmFeatures().threads };
}
